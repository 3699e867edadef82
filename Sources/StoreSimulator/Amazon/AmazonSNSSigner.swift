import Foundation
import TollgateCrypto

/// The simulated Amazon SNS signing identity: an RSA key and a certificate on it, served at
/// `GET /sns/SimpleNotificationService-sim.pem` (the messages' `SigningCertURL`). Saved in the
/// data directory and reused, so a receiver that pinned or cached it keeps verifying.
struct AmazonSNSSigner: Sendable {
  let key: RSAPrivateKey
  let certificate: Certificate
  /// The certificate as SNS serves it: PEM.
  let certificatePEM: String

  static let keyFile = "amazon-sns-key.pem"
  static let certificateFile = "amazon-sns-cert.pem"
  static let certificatePath = "/sns/SimpleNotificationService-sim.pem"

  /// The key and certificate saved in `directory`, or new ones (saved there when set).
  /// - Parameter nowMs: the virtual start: a new certificate is valid 10 years around it.
  static func load(orCreateIn directory: String?, nowMs: Int64) throws(StoreSimulatorError) -> AmazonSNSSigner {
    do {
      if let directory,
        let keyPEM = try? String(contentsOfFile: "\(directory)/\(keyFile)", encoding: .utf8),
        let certPEM = try? String(contentsOfFile: "\(directory)/\(certificateFile)", encoding: .utf8)
      {
        return AmazonSNSSigner(key: try RSAPrivateKey(pem: keyPEM), certificate: try Certificate(pem: certPEM))
      }
      let key = try SimulatorKeys.rsa("amazon-sns")
      let certificate = try CertificateIssuer.issueSelfSigned(
        rsaKey: key, commonName: "sns.amazonaws.com", serial: Int64.random(in: 1...Int64.max),
        validity: .around(nowMs / 1000, years: 10))
      let signer = AmazonSNSSigner(key: key, certificate: certificate)
      if let directory {
        try SimulatorKeys.makeDirectory(directory)
        try SimulatorKeys.writePrivate(Array(try key.pkcs8PEM().utf8), to: "\(directory)/\(keyFile)")
        try SimulatorKeys.writePrivate(Array(signer.certificatePEM.utf8), to: "\(directory)/\(certificateFile)")
      }
      return signer
    } catch {
      throw StoreSimulatorError(code: .startup, message: "cannot set up the SNS signing key: \(error)", cause: error)
    }
  }

  private init(key: RSAPrivateKey, certificate: Certificate) {
    self.key = key
    self.certificate = certificate
    certificatePEM = certificate.pemRepresentation
  }

  /// Base64 of the signature over `canonical`: SHA1withRSA for `SignatureVersion` 1,
  /// SHA256withRSA for 2.
  func sign(_ canonical: String, signatureVersion: Int) -> String {
    let bytes = Array(canonical.utf8)
    do {
      return Base64.encode(
        signatureVersion == 1 ? try RSASHA1.sign(bytes, with: key) : try RS256.sign(bytes, with: key))
    } catch {
      // Signing with a loaded RSA key cannot fail short of a bug.
      preconditionFailure("cannot sign an SNS message: \(error)")
    }
  }
}

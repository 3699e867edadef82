import Foundation
import Synchronization
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
      let key = try sharedKey()
      let certificate = try CertificateIssuer.issueSelfSigned(
        rsaKey: key, commonName: "sns.amazonaws.com", serial: Int64.random(in: 1...Int64.max),
        validity: .around(nowMs / 1000, years: 10))
      let signer = AmazonSNSSigner(key: key, certificate: certificate)
      if let directory {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try write(Array(try key.pkcs8PEM().utf8), to: "\(directory)/\(keyFile)")
        try write(Array(signer.certificatePEM.utf8), to: "\(directory)/\(certificateFile)")
      }
      return signer
    } catch {
      throw StoreSimulatorError(code: .startup, message: "cannot set up the SNS signing key: \(error)", cause: error)
    }
  }

  private init(key: RSAPrivateKey, certificate: Certificate) {
    self.key = key
    self.certificate = certificate
    let base64 = Base64.encode(certificate.der)
    var lines: [Substring] = []
    var rest = Substring(base64)
    while !rest.isEmpty {
      lines.append(rest.prefix(64))
      rest = rest.dropFirst(64)
    }
    certificatePEM = "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
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

  /// One key for every simulator of the process that has no saved one: RSA-2048 generation takes
  /// a tenth of a second or more, and tests start hundreds of simulators.
  private static let generated = Mutex<RSAPrivateKey?>(nil)

  private static func sharedKey() throws -> RSAPrivateKey {
    if let key = generated.withLock({ $0 }) { return key }
    let key = try RSAPrivateKey.generate(bits: 2048)
    return generated.withLock { saved in
      if let first = saved { return first }
      saved = key
      return key
    }
  }

  private static func write(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
  }
}

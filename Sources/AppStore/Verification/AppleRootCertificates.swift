import Foundation
import TollgateCrypto

/// Apple's root certificates, pinned by SHA-256 fingerprint. Tollgate carries Apple's public roots
/// (`bundled`); an operator can replace them with a directory of `.cer` files downloaded from
/// https://www.apple.com/certificateauthority/ (`$TOLLGATE_APPLE_ROOTS`). Either way only
/// certificates whose fingerprint is one of these are accepted.
public enum AppleRootCertificates {
  /// Apple Root CA - G3: signs App Store JWS (transactions, renewal info, notifications).
  public static let rootCAG3SHA256 = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"
  /// Apple Root CA - G2.
  public static let rootCAG2SHA256 = "c2b9b042dd57830e7d117dac55ac8ae19407d38e41d88f3215bc3a890444a050"
  /// Apple Inc. Root Certificate: signs legacy app receipts (PKCS#7).
  public static let incRootSHA256 = "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024"

  public static let pinnedFingerprints: Set<String> = [rootCAG3SHA256, rootCAG2SHA256, incRootSHA256]

  public struct LoadError: Error, CustomStringConvertible {
    public var description: String
  }

  /// Reads certificates (DER or PEM) from explicit files: any certificate is accepted (test roots).
  public static func load(files: [String]) throws -> [Certificate] {
    try files.map { path in
      guard let data = FileManager.default.contents(atPath: path) else {
        throw LoadError(description: "cannot read root certificate \(path)")
      }
      guard let certificate = certificate(from: Array(data)) else {
        throw LoadError(description: "\(path) is not a DER or PEM certificate")
      }
      return certificate
    }
  }

  /// Apple's pinned roots: those in `$TOLLGATE_APPLE_ROOTS` when it is set (an error if it holds
  /// none), else the bundled ones.
  public static func loadPinned(environment: [String: String] = ProcessInfo.processInfo.environment) throws
    -> [Certificate]
  {
    guard let directory = environment["TOLLGATE_APPLE_ROOTS"] else { return try bundledRoots() }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    let roots = names.sorted().compactMap { name -> Certificate? in
      guard let data = FileManager.default.contents(atPath: "\(directory)/\(name)") else { return nil }
      guard let certificate = certificate(from: Array(data)) else { return nil }
      return pinnedFingerprints.contains(certificate.sha256Fingerprint) ? certificate : nil
    }
    guard roots.isEmpty else { return roots }
    throw LoadError(
      description: """
        no Apple root certificates found in $TOLLGATE_APPLE_ROOTS (\(directory)): put AppleRootCA-G3.cer and \
        AppleIncRootCertificate.cer from https://www.apple.com/certificateauthority/ there, unset it to use the \
        bundled roots, or pass --root FILE
        """)
  }

  /// The bundled roots, each checked against its pinned fingerprint.
  public static func bundledRoots() throws -> [Certificate] {
    try bundled.map { entry in
      guard let der = Base64.decode(entry.base64, ignoringWhitespace: true),
        let certificate = try? Certificate(der: der),
        pinnedFingerprints.contains(certificate.sha256Fingerprint)
      else { throw LoadError(description: "the bundled \(entry.name) does not match its pinned fingerprint") }
      return certificate
    }
  }

  static func certificate(from bytes: [UInt8]) -> Certificate? {
    if let der = try? Certificate(der: bytes) { return der }
    let text = String(decoding: bytes, as: UTF8.self)
    guard let begin = text.range(of: "-----BEGIN CERTIFICATE-----"),
      let end = text.range(of: "-----END CERTIFICATE-----")
    else { return nil }
    let body = String(text[begin.upperBound..<end.lowerBound])
    guard let der = Base64.decode(body, ignoringWhitespace: true) else { return nil }
    return try? Certificate(der: der)
  }
}

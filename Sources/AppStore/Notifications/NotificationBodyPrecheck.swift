import Foundation
import TollgateCrypto

/// A look at a V2 notification body that costs next to nothing, before any payload is decoded or
/// any certificate parsed: the body must be no larger than Apple's ever are, hold one
/// `signedPayload`, and that compact JWS must have the header Apple signs with (small base64url
/// JSON, `alg` ES256, an `x5c` of three certificates of a certificate's size) and a 64-byte ES256
/// signature. A forged body that fails here never reaches `SignedDataVerifier`.
///
/// The numbers are far above what Apple sends (a real header is ~4.4 KB with certificates of
/// 0.8–1.5 KB in base64; a notification with its signed transaction and renewal info ~30 KB)
/// and far below what makes verification expensive.
public enum NotificationBodyPrecheck {
  /// The largest V2 body accepted (128 KiB); the worker's route refuses a larger one with 413
  /// before reading it.
  public static let maxBodyBytes = 128 * 1_024
  /// The largest base64url JWS header segment.
  public static let maxHeaderBytes = 8 * 1_024
  /// The largest base64 `x5c` entry (a DER certificate of 3 KB).
  public static let maxCertificateBytes = 4 * 1_024
  /// Leaf, intermediate, root.
  public static let certificateCount = 3
  /// An ES256 signature, raw r ‖ s.
  public static let signatureBytes = 64

  /// The body's `signedPayload`, when the body passes every check; else the first check it fails.
  public static func signedPayload(ofBody body: [UInt8]) throws(VerificationError) -> String {
    guard body.count <= maxBodyBytes else {
      throw VerificationError(code: .oversized, message: "the body is \(body.count) bytes, more than \(maxBodyBytes)")
    }
    struct Body: Decodable { var signedPayload: String }
    guard let signedPayload = try? JSONDecoder().decode(Body.self, from: Data(body)).signedPayload else {
      throw VerificationError(code: .invalidJWTFormat, message: "the body has no signedPayload")
    }
    try checkShape(signedPayload)
    return signedPayload
  }

  /// Checks a compact JWS's segments and header without looking at its payload.
  public static func checkShape(_ compact: String) throws(VerificationError) {
    let parts = compact.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
      throw VerificationError(code: .invalidJWTFormat, message: "expected 3 segments, got \(parts.count)")
    }
    guard parts[0].count <= maxHeaderBytes else {
      throw VerificationError(
        code: .oversized, message: "the JWS header is \(parts[0].count) bytes, more than \(maxHeaderBytes)")
    }
    guard let headerJSON = Base64URL.decode(Substring(parts[0])),
      let signature = Base64URL.decode(Substring(parts[2]))
    else {
      throw VerificationError(code: .malformedBase64, message: "a JWS segment is not base64url")
    }
    guard let header = try? JSONDecoder().decode(JWS.Header.self, from: Data(headerJSON)) else {
      throw VerificationError(code: .invalidJWTFormat, message: "the JWS header is not a JSON object")
    }
    guard header.alg == "ES256" else {
      throw VerificationError(code: .unsupportedAlgorithm, message: "alg is not ES256")
    }
    guard let x5c = header.x5c else {
      throw VerificationError(code: .missingCertificateChain, message: "the JWS header has no x5c")
    }
    guard x5c.count == certificateCount else {
      throw VerificationError(
        code: .invalidChainLength, message: "x5c holds \(x5c.count) certificates, expected \(certificateCount)")
    }
    guard x5c.allSatisfy({ !$0.isEmpty && $0.utf8.count <= maxCertificateBytes }) else {
      throw VerificationError(
        code: .oversized, message: "an x5c entry is empty or more than \(maxCertificateBytes) bytes")
    }
    guard signature.count == signatureBytes else {
      throw VerificationError(
        code: .signatureMismatch, message: "the signature is \(signature.count) bytes, not \(signatureBytes)")
    }
  }
}

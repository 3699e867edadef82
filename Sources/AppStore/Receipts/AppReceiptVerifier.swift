import Foundation
import TollgateCrypto

/// Checks a legacy app receipt's PKCS#7 signature against pinned roots (Apple Inc. Root in
/// production; the StoreKit test certificate for Xcode receipts) and parses it.
///
/// The signer must be an App Store receipt-signing certificate (`signerOID`, Apple's marker
/// 1.2.840.113635.100.6.11.1, as for signed transactions): any other certificate chaining to an
/// Apple root is refused. A signer that is itself a configured root (Xcode's self-signed StoreKit
/// certificate) is trusted as configured.
///
/// Time: Apple's receipt signing certificates expire while the receipts they signed stay
/// valid, so the chain is evaluated at the receipt's own creation date (attribute 12, covered
/// by the signature), not at now. A receipt without a creation date is evaluated at now.
public struct AppReceiptVerifier: Sendable {
  /// The extension Apple's receipt-signing certificates carry ("Mac App Store and iTunes Store
  /// Receipt Signing"); the same marker `SignedDataVerifier.leafOID` requires of JWS leaves.
  public static let signerOID = SignedDataVerifier.leafOID

  public var rootCertificates: [Certificate]
  /// When set, the receipt's bundle id must match.
  public var bundleId: String?
  /// When set, the signature chain is checked at this moment (ms) instead of the creation date.
  public var validationTimeMs: Int64?
  private let nowMs: @Sendable () -> Int64

  public init(
    rootCertificates: [Certificate], bundleId: String? = nil,
    now: @escaping @Sendable () -> Int64 = SignedDataVerifier.systemNowMs
  ) {
    self.rootCertificates = rootCertificates
    self.bundleId = bundleId
    self.nowMs = now
  }

  /// Verifies base64 receipt data (whitespace allowed).
  public func verify(base64 receipt: String) -> VerificationResult<AppReceipt> {
    guard let der = Base64.decode(receipt, ignoringWhitespace: true) else {
      return .invalid(VerificationError(code: .malformedBase64, message: "the receipt is not base64"))
    }
    return verify(der: der)
  }

  public func verify(der: [UInt8]) -> VerificationResult<AppReceipt> {
    guard let unverified = try? PKCS7.signedContent(of: der), let parsed = AppReceipt(payload: unverified) else {
      return .invalid(VerificationError(code: .malformedPayload, message: "not a PKCS#7 app receipt"))
    }
    let atMs = validationTimeMs ?? parsed.creationDateMs ?? nowMs()
    do {
      _ = try PKCS7.verify(der, roots: rootCertificates, at: atMs / 1000, signerOID: Self.signerOID)
    } catch {
      if error.code == .missingLeafExtension {
        return .invalid(
          VerificationError(
            code: .verificationFailure,
            message: "the receipt's signer is not an App Store receipt-signing certificate "
              + "(no extension \(Self.signerOID))"))
      }
      let code: VerificationError.Code = error.code == .signatureMismatch ? .signatureMismatch : .verificationFailure
      return .invalid(VerificationError(code: code, message: error.message))
    }
    if let bundleId, parsed.bundleId != bundleId {
      return .invalid(.appIdentifier("receipt bundle id \(parsed.bundleId ?? "nil")"))
    }
    return .valid(parsed)
  }

  /// Parses without any signature check (for `tollgate inspect` and lookups of ids only).
  public static func parseUnverified(der: [UInt8]) -> AppReceipt? {
    (try? PKCS7.signedContent(of: der)).flatMap(AppReceipt.init(payload:))
  }
}

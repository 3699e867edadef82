import TollgateCrypto

/// The Play Billing library's client-side signature: RSA-SHA1 (PKCS#1 v1.5) over the exact bytes
/// of `INAPP_PURCHASE_DATA`, with the app's licensing key from Play Console (Monetization setup →
/// Licensing: base64 of an X.509 SubjectPublicKeyInfo).
///
/// A cheap first check on what a client submits, never the source of state: that comes from the
/// Android Publisher API. Verify the bytes as received; re-serializing the JSON breaks the
/// signature.
public struct PlayBillingSignatureVerifier: Sendable {
  /// Why a purchase signature was refused.
  public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The signature is not base64.
    case malformedSignature
    /// The signature does not match the purchase data under the licensing key.
    case signatureMismatch

    public var description: String {
      switch self {
      case .malformedSignature: "the Play Billing signature is not base64"
      case .signatureMismatch: "the Play Billing signature does not match INAPP_PURCHASE_DATA under the licensing key"
      }
    }
  }

  private let key: RSAPublicKey

  /// `licensingKeyBase64` is the key as Play Console shows it (whitespace is ignored). A key that
  /// is not base64 or not an RSA SubjectPublicKeyInfo is a configuration error: the `CryptoError`
  /// says which.
  public init(licensingKeyBase64: String) throws(CryptoError) {
    guard let der = Base64.decode(licensingKeyBase64, ignoringWhitespace: true), !der.isEmpty else {
      throw CryptoError(code: .malformedKey, message: "the Play licensing key is not base64")
    }
    self.key = try RSAPublicKey(bytes: der)
  }

  public init(publicKey: RSAPublicKey) { self.key = publicKey }

  /// Checks `signatureBase64` (as the Billing library returns it) over `purchaseData`, the exact
  /// bytes of `INAPP_PURCHASE_DATA`.
  public func verify(purchaseData: [UInt8], signatureBase64: String) -> Result<Void, Failure> {
    guard let signature = Base64.decode(signatureBase64, ignoringWhitespace: true), !signature.isEmpty else {
      return .failure(.malformedSignature)
    }
    return RSASHA1.isValidSignature(signature, for: purchaseData, publicKey: key)
      ? .success(()) : .failure(.signatureMismatch)
  }
}

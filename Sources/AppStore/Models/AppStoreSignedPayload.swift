/// A payload the App Store signs as a JWS: a notification, a transaction, renewal info or an app
/// transaction. Its certificate chain is checked at the moment it says it was signed.
public protocol AppStoreSignedPayload: Decodable, Sendable {
  /// `signedDate`, else (an app transaction's) `receiptCreationDate`, in ms; nil when it has neither.
  var signingDateMs: Int64? { get }
}

extension ResponseBodyV2DecodedPayload: AppStoreSignedPayload {
  public var signingDateMs: Int64? { signedDate }
}

extension JWSTransactionDecodedPayload: AppStoreSignedPayload {
  public var signingDateMs: Int64? { signedDate }
}

extension JWSRenewalInfoDecodedPayload: AppStoreSignedPayload {
  public var signingDateMs: Int64? { signedDate }
}

extension AppTransaction: AppStoreSignedPayload {
  public var signingDateMs: Int64? { signedDate ?? receiptCreationDate }
}

import AppStore
import TollgateCore

/// Input: a compact JWS as the App Store signs it (a transaction, renewal info, an app
/// transaction or a notification's signedPayload). Parsed, its x5c chain and ES256 signature
/// verified against the fuzz roots, its payload decoded as every kind and mapped to Core.
enum AppleJWSHarness {
  static func run(_ bytes: [UInt8]) {
    let compact = String(decoding: bytes, as: UTF8.self)
    guard case .success(let jws) = JWS.parse(compact) else { return }
    _ = AppleFixtures.signedVerifier.verifySignature(jws)

    let unsigned = AppleFixtures.unsignedVerifier
    if let transaction = unsigned.decode(compact, as: JWSTransactionDecodedPayload.self).payload {
      _ = unsigned.verifyTransaction(compact)
      _ = StoreTransaction(appStore: transaction)
      _ = SubscriptionHistory(
        appStoreOriginalTransactionId: transaction.originalTransactionId ?? "", transactions: [transaction],
        renewalInfo: nil, asOfMs: AppleFixtures.nowMs)
    }
    if let renewalInfo = unsigned.decode(compact, as: JWSRenewalInfoDecodedPayload.self).payload {
      _ = unsigned.verifyRenewalInfo(compact)
      _ = RenewalInfo(appStore: renewalInfo)
    }
    _ = unsigned.verifyAppTransaction(compact)
    if case .valid(let notification) = unsigned.verifyNotificationContents(compact) {
      _ = StoreEvent(appStore: notification)
    }
  }
}

import Foundation
import TollgateCore
import TollgateCrypto

/// A legacy App Store Server Notification (V1): unsigned JSON authenticated only by the app's
/// shared secret in `password`, with the chain's receipt in `unified_receipt`.
public struct NotificationV1: Sendable, Hashable {
  /// Raw `notification_type`: INITIAL_BUY, DID_RENEW, DID_RECOVER, INTERACTIVE_RENEWAL,
  /// DID_FAIL_TO_RENEW, DID_CHANGE_RENEWAL_STATUS, DID_CHANGE_RENEWAL_PREF, CANCEL, REFUND,
  /// REVOKE, PRICE_INCREASE_CONSENT, CONSUMPTION_REQUEST, RENEWAL.
  public var notificationType: String?
  /// "PROD" or "Sandbox".
  public var environment: String?
  /// `bid`.
  public var bundleId: String?
  /// `bvrs`.
  public var bundleVersion: String?
  public var autoRenewStatus: Bool?
  public var autoRenewProductId: String?
  public var originalTransactionId: String?
  public var unifiedReceipt: VerifyReceiptResponse?

  /// Decodes `body` and checks `password` against `sharedSecret` (constant time) and `bid`
  /// against `bundleId` when given.
  public static func verify(body: Data, sharedSecret: String, bundleId: String? = nil) -> VerificationResult<
    NotificationV1
  > {
    guard let json = LegacyJSON(data: body) else {
      return .invalid(VerificationError(code: .malformedPayload, message: "a V1 notification is a JSON object"))
    }
    let password = Array((json.string("password") ?? "").utf8)
    let expected = Array(sharedSecret.utf8)
    guard !expected.isEmpty,
      HMACSHA256.isEqual(SHA256.hash(password), SHA256.hash(expected))
    else {
      return .invalid(VerificationError(code: .invalidSharedSecret, message: "password is not the shared secret"))
    }
    let notification = NotificationV1(json: json)
    if let bundleId, notification.bundleId != bundleId {
      return .invalid(.appIdentifier("bid \(notification.bundleId ?? "nil")"))
    }
    return .valid(notification)
  }

  init(json: LegacyJSON) {
    notificationType = json.string("notification_type")
    environment = json.string("environment")
    bundleId = json.string("bid")
    bundleVersion = json.string("bvrs")
    autoRenewStatus = json.bool("auto_renew_status")
    autoRenewProductId = json.string("auto_renew_product_id")
    let unified = json.child("unified_receipt").flatMap(VerifyReceiptResponse.init(json:))
    unifiedReceipt = unified
    originalTransactionId =
      json.string("original_transaction_id") ?? unified?.latestReceiptInfo.first?.originalTransactionId
  }

  public var storeEnvironment: StoreEnvironment { environment == "PROD" ? .production : .sandbox }

  /// What happened, in Core's vocabulary.
  public var eventKind: StoreEventKind {
    switch notificationType {
    case "INITIAL_BUY": return .purchased
    case "DID_RENEW": return .renewed
    case "DID_RECOVER", "RENEWAL": return .recovered
    case "INTERACTIVE_RENEWAL": return .resubscribed
    case "DID_FAIL_TO_RENEW": return .renewalFailed
    case "DID_CHANGE_RENEWAL_STATUS": return autoRenewStatus == true ? .autoRenewEnabled : .autoRenewDisabled
    case "DID_CHANGE_RENEWAL_PREF": return .productChangeScheduled
    case "CANCEL", "REFUND": return .refunded
    case "REVOKE": return .revoked
    case "PRICE_INCREASE_CONSENT": return .priceIncrease
    default: return .informational
    }
  }
}

/// `subscriptionState` of a subscriptionsv2 resource.
public enum GoogleSubscriptionState: String, Sendable, Hashable, Codable {
  case pending = "SUBSCRIPTION_STATE_PENDING"
  case active = "SUBSCRIPTION_STATE_ACTIVE"
  case inGracePeriod = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
  case onHold = "SUBSCRIPTION_STATE_ON_HOLD"
  case paused = "SUBSCRIPTION_STATE_PAUSED"
  case canceled = "SUBSCRIPTION_STATE_CANCELED"
  case expired = "SUBSCRIPTION_STATE_EXPIRED"
  case pendingPurchaseCanceled = "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
}

/// Who canceled a subscription (`canceledStateContext`).
public enum GoogleCancellation: String, Sendable, Hashable, Codable {
  case user = "userInitiatedCancellation"
  case system = "systemInitiatedCancellation"
  case developer = "developerInitiatedCancellation"
  case replacement = "replacementCancellation"
}

/// The offer phase a line item is in (`offerPhase`).
enum GoogleOfferPhase: String, Sendable, Hashable {
  case freeTrial, introductoryPrice, basePrice
}

/// A price change announced for a subscription: `priceChangeDetails`, and for an increase that
/// needs it, `priceStepUpConsentDetails`.
struct GooglePriceChange: Sendable, Hashable {
  var newPriceMicros: Int64
  /// PRICE_INCREASE (consent needed), OPT_OUT_PRICE_INCREASE, PRICE_DECREASE.
  var mode: String
  /// OUTSTANDING, CONFIRMED, APPLIED, CANCELED.
  var state: String
  var expectedChargeTimeMs: Int64
  var consentDeadlineMs: Int64?
}

/// One subscription purchase token and everything Google knows of it.
struct GoogleSubscriptionPurchase: Sendable {
  var purchaseToken: String
  var packageName: String
  var productId: String
  var basePlanId: String
  var offerId: String?
  var offerTags: [String]
  var offerPhase: GoogleOfferPhase
  /// Offer phases still to come after the current one (intro prices over several periods).
  var offerPhasesLeft = 0
  var state = GoogleSubscriptionState.active
  var startTimeMs: Int64
  var expiryTimeMs: Int64
  var autoRenewEnabled = true
  var recurringPriceMicros: Int64
  var acknowledged = false
  /// `GPA.…`; renewal orders are `GPA.…..0`, `..1`, …
  var orderIdBase: String
  var orderIds: [String]
  var linkedPurchaseToken: String?
  /// The token that replaced this one (upgrade now, or a deferred downgrade at renewal).
  var replacedByToken: String?
  var obfuscatedExternalAccountId: String?
  var obfuscatedExternalProfileId: String?
  var testPurchase = false
  var cancellation: GoogleCancellation?
  var cancelTimeMs: Int64?
  var failRenewals = false
  /// When the failed renewal happened (grace and hold count from it).
  var renewalDeclinedAtMs: Int64?
  /// A pause the user scheduled: it starts at the next renewal and lasts this long.
  var scheduledPauseMs: Int64?
  var autoResumeTimeMs: Int64?
  var deferredReplacementProductId: String?
  var priceChange: GooglePriceChange?
  /// When access ended for good (expiry, revocation): the token answers 410 60 days later.
  var endedAtMs: Int64?
  var epoch = 0

  var latestOrderId: String { orderIds.last ?? orderIdBase }
  var hasEnded: Bool { endedAtMs != nil }
}

/// One one-time product purchase token.
struct GoogleProductPurchase: Sendable {
  var purchaseToken: String
  var packageName: String
  var productId: String
  var orderId: String
  var purchaseTimeMs: Int64
  var acknowledged = false
  var consumed = false
  /// 0 purchased, 1 canceled (refunded or revoked), 2 pending (`ProductPurchase.purchaseState`).
  var purchaseState = 0
  var testPurchase = false
  var obfuscatedExternalAccountId: String?
  var obfuscatedExternalProfileId: String?
  var priceMicros: Int64
  var endedAtMs: Int64?
}

/// One entry of `voidedpurchases.list`.
struct GoogleVoidedPurchase: Sendable, Hashable {
  var packageName: String
  var purchaseToken: String
  var orderId: String
  var purchaseTimeMs: Int64
  var voidedTimeMs: Int64
  /// 0 user, 1 developer, 2 Google.
  var voidedSource: Int
  /// 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental, 5 fraud, 6 friendly fraud, 7 chargeback.
  var voidedReason: Int
  /// 1 subscription, 2 one-time product (`voidedPurchaseNotification.productType`).
  var productType: Int
}

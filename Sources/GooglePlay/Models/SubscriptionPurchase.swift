/// A `purchases.subscriptions.get` resource (Android Publisher v3 `SubscriptionPurchase`, the v1
/// subscription API that subscriptionsv2 replaces), with Google's field names. Tollgate reads
/// subscriptionsv2; this model exists so that an older resource a support engineer holds can
/// still be inspected.
///
/// Every field is optional and integer codes stay raw beside typed accessors. The resource does
/// not name its product: that was part of the request path.
public struct SubscriptionPurchase: Sendable, Hashable, Decodable {
  /// "androidpublisher#subscriptionPurchase".
  public var kind: String?
  @GoogleMillis public var startTimeMillis: Int64?
  /// When the subscription expires (or expired) unless renewed; the end of the grace period while in grace.
  @GoogleMillis public var expiryTimeMillis: Int64?
  /// When a paused subscription resumes by itself.
  @GoogleMillis public var autoResumeTimeMillis: Int64?
  public var autoRenewing: Bool?
  public var priceCurrencyCode: String?
  /// The price in micro-units, a JSON string.
  @GoogleMillis public var priceAmountMicros: Int64?
  public var countryCode: String?
  public var developerPayload: String?
  /// 0 payment pending, 1 payment received, 2 free trial, 3 pending deferred upgrade/downgrade.
  public var paymentState: Int?
  /// 0 user, 1 system (billing), 2 replaced, 3 developer.
  public var cancelReason: Int?
  @GoogleMillis public var userCancellationTimeMillis: Int64?
  /// `GPA.…` for the first order, `GPA.…..N` for the N-th renewal.
  public var orderId: String?
  public var linkedPurchaseToken: String?
  /// Absent for a normal purchase; 0 test, 1 promo.
  public var purchaseType: Int?
  /// 0 yet to be acknowledged, 1 acknowledged.
  public var acknowledgementState: Int?
  public var obfuscatedExternalAccountId: String?
  public var obfuscatedExternalProfileId: String?
  public var externalAccountId: String?

  public init() {}

  public var typedPaymentState: SubscriptionPaymentState? {
    paymentState.flatMap(SubscriptionPaymentState.init(rawValue:))
  }
  public var typedCancelReason: SubscriptionCancelReason? {
    cancelReason.flatMap(SubscriptionCancelReason.init(rawValue:))
  }
  /// Whether this is a test purchase (`purchaseType` 0, a license tester).
  public var isTestPurchase: Bool { purchaseType == 0 }
  /// `nil` for a code Google has not documented, or none.
  public var isAcknowledged: Bool? {
    switch acknowledgementState {
    case 0: false
    case 1: true
    default: nil
    }
  }
}

/// `SubscriptionPurchase.paymentState`.
public enum SubscriptionPaymentState: Int, Sendable, Hashable, CaseIterable {
  case pending = 0
  case received = 1
  case freeTrial = 2
  case pendingDeferredUpgradeDowngrade = 3
}

/// `SubscriptionPurchase.cancelReason`.
public enum SubscriptionCancelReason: Int, Sendable, Hashable, CaseIterable {
  case userCanceled = 0
  case systemCanceled = 1
  case replaced = 2
  case developerCanceled = 3
}

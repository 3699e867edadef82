/// A Real-time developer notification (`DeveloperNotification`), the JSON inside a Pub/Sub
/// message's `data`. Exactly one of the notification members is set.
///
/// The notification is only a trigger: the state comes from re-reading the purchase.
public struct DeveloperNotification: Sendable, Hashable, Decodable {
  public var version: String?
  public var packageName: String?
  /// When the event happened, ms since the epoch (Google writes a string).
  @GoogleMillis public var eventTimeMillis: Int64?
  public var subscriptionNotification: SubscriptionNotification?
  public var oneTimeProductNotification: OneTimeProductNotification?
  public var voidedPurchaseNotification: VoidedPurchaseNotification?
  public var testNotification: TestNotification?
  public var pendingRefundReviewNotification: PendingRefundReviewNotification?

  public init() {}

  /// Which member is set; `.unknown` when none Tollgate knows is.
  public var kind: DeveloperNotificationKind {
    if subscriptionNotification != nil { return .subscription }
    if oneTimeProductNotification != nil { return .oneTimeProduct }
    if voidedPurchaseNotification != nil { return .voidedPurchase }
    if testNotification != nil { return .test }
    if pendingRefundReviewNotification != nil { return .pendingRefundReview }
    return .unknown
  }

  /// The purchase the notification is about; `nil` for a test notification.
  public var purchaseToken: String? {
    subscriptionNotification?.purchaseToken ?? oneTimeProductNotification?.purchaseToken
      ?? voidedPurchaseNotification?.purchaseToken
  }
}

/// What a `DeveloperNotification` is about (the names `inspect` prints).
public enum DeveloperNotificationKind: String, Sendable, Hashable, CaseIterable {
  case subscription
  case oneTimeProduct
  case voidedPurchase
  case test
  case pendingRefundReview
  case unknown
}

/// `subscriptionNotification`.
public struct SubscriptionNotification: Sendable, Hashable, Decodable {
  public var version: String?
  /// Raw `notificationType` (1–13, 17–20, 22 documented).
  public var notificationType: Int?
  public var purchaseToken: String?
  /// The subscription's product id; Google stopped filling it for newer notifications.
  public var subscriptionId: String?

  public var typedNotificationType: SubscriptionNotificationType? {
    notificationType.flatMap(SubscriptionNotificationType.init(rawValue:))
  }
}

/// `oneTimeProductNotification`.
public struct OneTimeProductNotification: Sendable, Hashable, Decodable {
  public var version: String?
  /// Raw `notificationType`: 1 purchased, 2 canceled.
  public var notificationType: Int?
  public var purchaseToken: String?
  /// The product id.
  public var sku: String?

  public var typedNotificationType: OneTimeProductNotificationType? {
    notificationType.flatMap(OneTimeProductNotificationType.init(rawValue:))
  }
}

/// `voidedPurchaseNotification`: a refund, chargeback or revocation.
public struct VoidedPurchaseNotification: Sendable, Hashable, Decodable {
  public var purchaseToken: String?
  public var orderId: String?
  /// 1 subscription, 2 one-time product.
  public var productType: Int?
  /// 1 full refund, 2 quantity-based partial refund.
  public var refundType: Int?

  public var typedProductType: VoidedProductType? { productType.flatMap(VoidedProductType.init(rawValue:)) }
  public var typedRefundType: VoidedRefundType? { refundType.flatMap(VoidedRefundType.init(rawValue:)) }
}

/// `testNotification`: sent from the Play Console; changes nothing.
public struct TestNotification: Sendable, Hashable, Decodable {
  public var version: String?
}

/// `pendingRefundReviewNotification`: a refund request under review; no change yet.
public struct PendingRefundReviewNotification: Sendable, Hashable, Decodable {
  public var version: String?
  public var pendingRefundToken: String?
  public var orderId: String?
  public var refundReason: Int?
  public var obfuscatedAccountId: String?
  public var obfuscatedProfileId: String?
}

/// `notificationType` of a Real-Time Notification: every type Amazon documents
/// (https://developer.amazon.com/docs/in-app-purchasing/real-time-notifications.html, "Supported
/// notification types").
public enum AmazonNotificationType: String, Sendable, Hashable, CaseIterable {
  case subscriptionPurchased = "SUBSCRIPTION_PURCHASED"
  case subscriptionRenewed = "SUBSCRIPTION_RENEWED"
  case subscriptionConvertedFreeTrialToPaid = "SUBSCRIPTION_CONVERTED_FREE_TRIAL_TO_PAID"
  case subscriptionCancelled = "SUBSCRIPTION_CANCELLED"
  case subscriptionExpired = "SUBSCRIPTION_EXPIRED"
  case subscriptionInGracePeriod = "SUBSCRIPTION_IN_GRACE_PERIOD"
  case subscriptionOutOfGracePeriod = "SUBSCRIPTION_OUT_OF_GRACE_PERIOD"
  case subscriptionAutoRenewalOn = "SUBSCRIPTION_AUTO_RENEWAL_ON"
  case subscriptionAutoRenewalOff = "SUBSCRIPTION_AUTO_RENEWAL_OFF"
  /// Auto-renew is off and the subscription ends soon (a reminder before the term's end).
  case subscriptionScheduledToEnd = "SUBSCRIPTION_SCHEDULED_TO_END"
  /// A tier or term change that applies now: the old receipt is cancelled (it is in
  /// `relatedReceipts`) and a new receipt starts.
  case subscriptionModifiedImmediate = "SUBSCRIPTION_MODIFIED_IMMEDIATE"
  /// A tier or term change at the next renewal (`deferredSku`).
  case subscriptionModifiedDeferred = "SUBSCRIPTION_MODIFIED_DEFERRED"
  case entitlementPurchased = "ENTITLEMENT_PURCHASED"
  case entitlementCancelled = "ENTITLEMENT_CANCELLED"
  case consumablePurchased = "CONSUMABLE_PURCHASED"
  case consumableCancelled = "CONSUMABLE_CANCELLED"

  /// The product type the notification is about.
  public var productType: RVSProductType {
    switch self {
    case .entitlementPurchased, .entitlementCancelled: .entitled
    case .consumablePurchased, .consumableCancelled: .consumable
    default: .subscription
    }
  }
}

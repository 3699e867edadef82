extension StoreEventKind {
  /// Maps an App Store Server Notifications V2 `notificationType` and `subtype`.
  ///
  /// Source: developer.apple.com/documentation/appstoreservernotifications/notificationtype and
  /// …/subtype. Returns `nil` for a type Apple has not documented (yet).
  public init?(appStoreNotificationType type: String, subtype: String?) {
    switch (type, subtype) {
    case ("SUBSCRIBED", "RESUBSCRIBE"): self = .resubscribed
    case ("SUBSCRIBED", _): self = .purchased
    case ("DID_RENEW", "BILLING_RECOVERY"): self = .recovered
    case ("DID_RENEW", _): self = .renewed
    case ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"): self = .gracePeriodStarted
    case ("DID_FAIL_TO_RENEW", _): self = .renewalFailed
    case ("GRACE_PERIOD_EXPIRED", _): self = .gracePeriodExpired
    case ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED"): self = .autoRenewEnabled
    case ("DID_CHANGE_RENEWAL_STATUS", _): self = .autoRenewDisabled
    case ("DID_CHANGE_RENEWAL_PREF", "UPGRADE"): self = .productChanged
    case ("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE"): self = .productChangeScheduled
    case ("DID_CHANGE_RENEWAL_PREF", _): self = .productChangeCanceled
    case ("PRICE_INCREASE", _): self = .priceIncrease
    case ("EXPIRED", _): self = .expired
    case ("REFUND", _): self = .refunded
    case ("REFUND_REVERSED", _): self = .refundReversed
    case ("REVOKE", _): self = .revoked
    case ("RENEWAL_EXTENDED", _), ("RENEWAL_EXTENSION", _): self = .renewalExtended
    case ("OFFER_REDEEMED", _): self = .offerRedeemed
    case ("TEST", _), ("CONSUMPTION_REQUEST", _), ("REFUND_DECLINED", _),
      ("EXTERNAL_PURCHASE_TOKEN", _), ("ONE_TIME_CHARGE", _):
      self = .informational
    default: return nil
    }
  }

  /// Maps a Google Play real-time developer notification `subscriptionNotification.notificationType`.
  ///
  /// Source: developer.android.com/google/play/billing/rtdn-reference. Returns `nil` for a code
  /// Google has not documented (yet).
  public init?(googlePlayNotificationType code: Int) {
    switch code {
    case 1: self = .recovered  // SUBSCRIPTION_RECOVERED
    case 2: self = .renewed  // SUBSCRIPTION_RENEWED
    case 3: self = .autoRenewDisabled  // SUBSCRIPTION_CANCELED
    case 4: self = .purchased  // SUBSCRIPTION_PURCHASED
    case 5: self = .onHold  // SUBSCRIPTION_ON_HOLD
    case 6: self = .gracePeriodStarted  // SUBSCRIPTION_IN_GRACE_PERIOD
    case 7: self = .autoRenewEnabled  // SUBSCRIPTION_RESTARTED
    case 8: self = .priceIncrease  // SUBSCRIPTION_PRICE_CHANGE_CONFIRMED (deprecated)
    case 9: self = .renewalExtended  // SUBSCRIPTION_DEFERRED
    case 10: self = .paused  // SUBSCRIPTION_PAUSED
    case 11: self = .pauseScheduleChanged  // SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED
    case 12: self = .revoked  // SUBSCRIPTION_REVOKED
    case 13: self = .expired  // SUBSCRIPTION_EXPIRED
    case 17: self = .productChanged  // SUBSCRIPTION_ITEMS_CHANGED
    case 18: self = .autoRenewDisabled  // SUBSCRIPTION_CANCELLATION_SCHEDULED
    case 19: self = .priceIncrease  // SUBSCRIPTION_PRICE_CHANGE_UPDATED
    case 20: self = .expired  // SUBSCRIPTION_PENDING_PURCHASE_CANCELED
    case 22: self = .priceIncrease  // SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED
    default: return nil
    }
  }
}

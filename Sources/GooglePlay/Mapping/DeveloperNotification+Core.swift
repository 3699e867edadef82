import TollgateCore

extension DeveloperNotification {
  /// What the notification reports, in Core's vocabulary; `nil` for a subscription
  /// `notificationType` Google has not documented, or a notification of no kind Tollgate knows.
  public var storeEventKind: StoreEventKind? {
    switch kind {
    case .subscription:
      subscriptionNotification?.notificationType.flatMap(StoreEventKind.init(googlePlayNotificationType:))
    case .oneTimeProduct:
      switch oneTimeProductNotification?.typedNotificationType {
      case .purchased?: .purchased
      // ONE_TIME_PRODUCT_CANCELED: a pending purchase was canceled.
      case .canceled?: .expired
      case nil: nil
      }
    case .voidedPurchase: .refunded
    case .test, .pendingRefundReview: .informational
    case .unknown: nil
    }
  }
}

extension StoreEvent {
  /// The notification as a trigger for its purchase: no periods and no renewal info, since the
  /// state comes from re-reading the purchase. `nil` for a notification that names no purchase
  /// (a test, a pending refund review) or whose kind Tollgate does not know.
  ///
  /// - Parameter messageId: the Pub/Sub `messageId`, which deduplicates redeliveries.
  public init?(googlePlay notification: DeveloperNotification, messageId: String) {
    guard let purchaseToken = notification.purchaseToken, let kind = notification.storeEventKind else { return nil }
    self.init(
      eventId: messageId, store: .googlePlay, purchaseId: purchaseToken, kind: kind,
      occurredAtMs: notification.eventTimeMillis ?? 0)
  }
}

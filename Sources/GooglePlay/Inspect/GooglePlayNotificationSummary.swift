/// What `inspect google-notification` says about a Real-time developer notification: which kind
/// it is, what it names, and the Pub/Sub message it came in.
public struct GooglePlayNotificationSummary: Sendable, Hashable {
  /// `nil` when the envelope holds no notification.
  public var kind: DeveloperNotificationKind?
  /// The subscription's or one-time product's `notificationType`.
  public var notificationType: Int?
  public var purchaseToken: String?
  public var packageName: String?
  /// `subscriptionNotification.subscriptionId` (Google stopped filling it for newer notifications).
  public var subscriptionId: String?
  public var eventTimeMs: Int64?
  /// The Pub/Sub `messageId`, from an envelope.
  public var messageId: String?

  public init(notification: DeveloperNotification?, envelope: PubSubPushEnvelope? = nil) {
    kind = notification?.kind
    notificationType =
      notification?.subscriptionNotification?.notificationType
      ?? notification?.oneTimeProductNotification?.notificationType
    purchaseToken = notification?.purchaseToken
    packageName = notification?.packageName
    subscriptionId = notification?.subscriptionNotification?.subscriptionId
    eventTimeMs = notification?.eventTimeMillis
    messageId = envelope?.message?.messageId
  }

  /// The summary as `inspect` prints it.
  public var jsonObject: [String: Any] {
    [
      "kind": GooglePlayInspection.orNull(kind?.rawValue),
      "notificationType": GooglePlayInspection.orNull(notificationType),
      "purchaseToken": GooglePlayInspection.orNull(purchaseToken),
      "packageName": GooglePlayInspection.orNull(packageName),
      "subscriptionId": GooglePlayInspection.orNull(subscriptionId),
      "eventTimeMs": GooglePlayInspection.orNull(eventTimeMs),
      "messageId": GooglePlayInspection.orNull(messageId),
    ]
  }
}

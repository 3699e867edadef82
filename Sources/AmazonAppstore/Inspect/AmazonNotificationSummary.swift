/// What `inspect amazon-notification` says about an SNS message: its SNS facts, and the Real-Time
/// Notification it carries.
public struct AmazonNotificationSummary: Sendable, Hashable {
  /// Raw `Type`: Notification, SubscriptionConfirmation, UnsubscribeConfirmation.
  public var type: String?
  public var messageId: String?
  public var topicArn: String?
  /// Raw `SignatureVersion`: "1" (SHA1withRSA) or "2" (SHA256withRSA).
  public var signatureVersion: String?
  /// The RTN in a `Notification`'s `Message`; `nil` when the message is not one (another type, a
  /// `Message` that is not a JSON object, or one with neither `notificationType` nor `receiptId`).
  public var rtn: AmazonNotification?

  public init(message: SNSMessage) {
    type = message.type
    messageId = message.messageId
    topicArn = message.topicArn
    signatureVersion = message.signatureVersion
    if message.typedType == .notification, let text = message.message,
      let notification = AmazonNotification(message: text),
      notification.notificationType != nil || notification.receiptId != nil
    {
      rtn = notification
    }
  }

  /// The summary as `inspect` prints it.
  public var jsonObject: [String: Any] {
    [
      "type": AmazonInspection.orNull(type), "messageId": AmazonInspection.orNull(messageId),
      "topicArn": AmazonInspection.orNull(topicArn), "signatureVersion": AmazonInspection.orNull(signatureVersion),
      "rtn": AmazonInspection.orNull(rtn.map(Self.object)),
    ]
  }

  /// The RTN's fields in Amazon's names, as decoded (key case and number formats normalized).
  /// `relatedReceipts` is an object of receipt ids by key, or the list of ids when Amazon sent a
  /// list.
  static func object(_ rtn: AmazonNotification) -> [String: Any] {
    let related: Any =
      rtn.relatedReceipts.isEmpty && !rtn.relatedReceiptIds.isEmpty ? rtn.relatedReceiptIds : rtn.relatedReceipts
    return [
      "appPackageName": AmazonInspection.orNull(rtn.appPackageName),
      "appUserId": AmazonInspection.orNull(rtn.appUserId), "receiptId": AmazonInspection.orNull(rtn.receiptId),
      "notificationType": AmazonInspection.orNull(rtn.notificationType), "relatedReceipts": related,
      "timestamp": AmazonInspection.orNull(rtn.timestamp),
      "betaProductTransaction": AmazonInspection.orNull(rtn.betaProductTransaction),
    ]
  }
}

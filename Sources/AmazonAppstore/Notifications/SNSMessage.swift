/// An Amazon SNS message as delivered to an HTTP(S) endpoint: a `Notification` (Amazon's
/// Real-Time Notifications put their JSON in `Message`), a `SubscriptionConfirmation` or an
/// `UnsubscribeConfirmation`.
///
/// Every field is optional here (verification reports what is missing); `Subject` may be absent or
/// `null`; both spellings AWS uses are accepted: `SigningCertURL` / `SigningCertUrl`,
/// `SubscribeURL` / `SubscribeUrl`, `UnsubscribeURL` / `UnsubscribeUrl` (the latter in Lambda
/// events). Unknown fields are ignored.
public struct SNSMessage: Sendable, Hashable, Decodable {
  /// Raw `Type`: Notification, SubscriptionConfirmation, UnsubscribeConfirmation.
  public var type: String?
  public var messageId: String?
  public var topicArn: String?
  /// `nil` when absent or `null` (then it is not part of the signed text).
  public var subject: String?
  public var message: String?
  /// Raw `Timestamp` as signed (RFC 3339, `2022-07-28T21:23:58.317Z`).
  public var timestamp: String?
  /// Raw `SignatureVersion`: "1" (SHA1withRSA) or "2" (SHA256withRSA).
  public var signatureVersion: String?
  /// Base64 of the RSA signature.
  public var signature: String?
  public var signingCertURL: String?
  public var subscribeURL: String?
  public var token: String?
  public var unsubscribeURL: String?

  public init(
    type: String? = nil, messageId: String? = nil, topicArn: String? = nil, subject: String? = nil,
    message: String? = nil, timestamp: String? = nil, signatureVersion: String? = nil, signature: String? = nil,
    signingCertURL: String? = nil, subscribeURL: String? = nil, token: String? = nil, unsubscribeURL: String? = nil
  ) {
    self.type = type
    self.messageId = messageId
    self.topicArn = topicArn
    self.subject = subject
    self.message = message
    self.timestamp = timestamp
    self.signatureVersion = signatureVersion
    self.signature = signature
    self.signingCertURL = signingCertURL
    self.subscribeURL = subscribeURL
    self.token = token
    self.unsubscribeURL = unsubscribeURL
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: AnyKey.self)
    // Exact field names: the signed text uses the values, and SNS spells its keys one way (or
    // the two documented ways of the URL fields).
    func text(_ names: String...) -> String? {
      for name in names {
        let key = AnyKey(stringValue: name)
        if let value = try? container.decode(String.self, forKey: key) { return value }
        if let number = try? container.decode(Int.self, forKey: key) { return String(number) }
      }
      return nil
    }
    type = text("Type")
    messageId = text("MessageId")
    topicArn = text("TopicArn")
    subject = text("Subject")
    message = text("Message")
    timestamp = text("Timestamp")
    signatureVersion = text("SignatureVersion")
    signature = text("Signature")
    signingCertURL = text("SigningCertURL", "SigningCertUrl")
    subscribeURL = text("SubscribeURL", "SubscribeUrl")
    token = text("Token")
    unsubscribeURL = text("UnsubscribeURL", "UnsubscribeUrl")
  }

  public var typedType: SNSMessageType? { type.flatMap(SNSMessageType.init(rawValue:)) }

  /// `Timestamp` in ms since the epoch; `nil` when absent or not an RFC 3339 UTC time.
  public var timestampMs: Int64? { timestamp.flatMap(SNSTimestamp.milliseconds) }
}

/// `Type` of an SNS message.
public enum SNSMessageType: String, Sendable, Hashable, CaseIterable {
  case notification = "Notification"
  case subscriptionConfirmation = "SubscriptionConfirmation"
  case unsubscribeConfirmation = "UnsubscribeConfirmation"
}

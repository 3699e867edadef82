extension SNSMessage {
  /// The bytes SNS signs (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html):
  /// each field's name and value on their own lines, in byte order of the names, every line ending
  /// in a newline.
  ///
  /// - Notification: Message, MessageId, Subject (only when present and not null), Timestamp,
  ///   TopicArn, Type.
  /// - SubscriptionConfirmation and UnsubscribeConfirmation: Message, MessageId, SubscribeURL,
  ///   Timestamp, Token, TopicArn, Type.
  ///
  /// A missing field is `.missingField`; another `Type` is `.malformed`.
  public func canonicalBytes() -> Result<[UInt8], SNSVerificationError> {
    guard let type else { return .failure(.missing("Type")) }
    let fields: [(String, String?)]
    switch typedType {
    case .notification?:
      fields =
        [("Message", message), ("MessageId", messageId)] + (subject.map { [("Subject", $0)] } ?? [])
        + [("Timestamp", timestamp), ("TopicArn", topicArn), ("Type", type)]
    case .subscriptionConfirmation?, .unsubscribeConfirmation?:
      fields = [
        ("Message", message), ("MessageId", messageId), ("SubscribeURL", subscribeURL), ("Timestamp", timestamp),
        ("Token", token), ("TopicArn", topicArn), ("Type", type),
      ]
    case nil:
      return .failure(SNSVerificationError(code: .malformed, message: "unknown SNS message Type \"\(type)\""))
    }
    var bytes: [UInt8] = []
    for (name, value) in fields {
      guard let value else { return .failure(.missing(name)) }
      bytes += Array(name.utf8) + [0x0A] + Array(value.utf8) + [0x0A]
    }
    return .success(bytes)
  }
}

extension SNSVerificationError {
  static func missing(_ field: String) -> SNSVerificationError {
    SNSVerificationError(code: .missingField, message: "the SNS message has no \(field)")
  }
}

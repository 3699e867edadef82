/// What confirming an SNS subscription takes: a verified `SubscriptionConfirmation` for an allowed
/// topic names a `SubscribeURL`; GETting it confirms the subscription. The URL must pass the same
/// policy as certificates (an SNS host, or a configured trusted prefix), so a message cannot make
/// Tollgate call anywhere else.
public struct SNSSubscriptionConfirmation: Sendable, Hashable {
  public let topicArn: String
  /// The URL to GET to confirm.
  public let subscribeURL: String
  /// The confirmation token (also in the URL).
  public let token: String?

  /// The confirmation of `verified`, or why there is none: not a SubscriptionConfirmation
  /// (`.malformed`), no `SubscribeURL` (`.missingField`), a URL the policy refuses
  /// (`.untrustedCertificateURL`).
  public static func of(_ verified: SNSVerifiedMessage, policy: SNSCertificatePolicy)
    -> Result<SNSSubscriptionConfirmation, SNSVerificationError>
  {
    let message = verified.message
    guard message.typedType == .subscriptionConfirmation else {
      return .failure(SNSVerificationError(code: .malformed, message: "not a SubscriptionConfirmation"))
    }
    guard let url = message.subscribeURL else { return .failure(.missing("SubscribeURL")) }
    guard let topic = message.topicArn else { return .failure(.missing("TopicArn")) }
    guard policy.allowsSubscribeURL(url) else {
      return .failure(
        SNSVerificationError(code: .untrustedCertificateURL, message: "SubscribeURL is not an SNS URL"))
    }
    return .success(SNSSubscriptionConfirmation(topicArn: topic, subscribeURL: url, token: message.token))
  }

  private init(topicArn: String, subscribeURL: String, token: String?) {
    self.topicArn = topicArn
    self.subscribeURL = subscribeURL
    self.token = token
  }
}

/// One app's notification URL as an SNS subscription: confirmed once the receiver has visited
/// its `SubscribeURL`; until then every Real-Time Notification is held.
struct AmazonEndpoint: Sendable {
  var url: String
  var topicArn: String
  /// The confirmation token (`Token`, and `Token=` in the SubscribeURL).
  var token: String
  /// `{topicArn}:{uuid}`, the `x-amz-sns-subscription-arn` of notifications.
  var subscriptionArn: String
  var confirmed = false
  var held: [OutgoingNotification] = []

  /// `pendingConfirmation` or `confirmed`.
  var status: String { confirmed ? "confirmed" : "pendingConfirmation" }
}

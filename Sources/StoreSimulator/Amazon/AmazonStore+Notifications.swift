import Foundation

/// Real-Time Notifications as Amazon SNS delivers them over HTTP(S): the SNS subscription of
/// each app's notification URL (SubscriptionConfirmation, then Notifications once confirmed),
/// every message signed with the simulator's SNS key.
extension AmazonStore {
  /// Subscribes `url` to the app's topic: a new token, and a signed `SubscriptionConfirmation`
  /// queued at once. Notifications held for the app's previous endpoint stay held.
  mutating func subscribe(_ packageName: String, url: String?, core: inout SimCore) throws(StoreSimulatorError) {
    let app = try app(packageName)
    let held = endpoints[packageName]?.held ?? []
    guard let url else {
      endpoints[packageName] = nil
      return
    }
    let token = (0..<64).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
    var endpoint = AmazonEndpoint(
      url: url, topicArn: app.topicArn, token: token,
      subscriptionArn: "\(app.topicArn):\(UUID().uuidString.lowercased())")
    endpoint.held = held
    endpoints[packageName] = endpoint
    let query = "Action=ConfirmSubscription&TopicArn=\(Self.queryEncoded(app.topicArn))&Token=\(token)"
    let message = SNSMessage(
      type: SNSMessage.subscriptionConfirmation, messageId: UUID().uuidString.lowercased(), topicArn: app.topicArn,
      message: "You have chosen to subscribe to the topic \(app.topicArn).\n"
        + "To confirm the subscription, visit the SubscribeURL included in this message.",
      timestamp: GoogleTimeText.rfc3339(core.nowMs), token: token, subscribeURL: "\(baseURL)/sns/confirm?\(query)",
      signatureVersion: config.signatureVersion, signingCertURL: baseURL + AmazonSNSSigner.certificatePath)
    core.outbox.append(outgoing(message, endpoint: endpoint, subject: packageName, core: core))
  }

  /// The receiver visited the SubscribeURL: the endpoint is confirmed and what was held is
  /// queued. Returns the subscription ARN, or `nil` for an unknown token or topic.
  mutating func confirm(token: String, topicArn: String?, core: inout SimCore) -> String? {
    guard let (packageName, endpoint) = endpoints.first(where: { $0.value.token == token }),
      topicArn == nil || topicArn == endpoint.topicArn
    else { return nil }
    endpoints[packageName]?.confirmed = true
    endpoints[packageName]?.held = []
    core.outbox.append(contentsOf: endpoint.held)
    return endpoint.subscriptionArn
  }

  /// The receiver visited an UnsubscribeURL: the endpoint's notifications are held again.
  mutating func unsubscribe(subscriptionArn: String) -> Bool {
    guard let packageName = endpoints.first(where: { $0.value.subscriptionArn == subscriptionArn })?.key else {
      return false
    }
    endpoints[packageName]?.confirmed = false
    return true
  }

  /// Queues the RTN `type` about `receipt` (held until the app's endpoint is confirmed).
  /// - Parameter related: `relatedReceipts`, e.g. `["cancelledReceiptId": …]`.
  mutating func notify(
    _ type: AmazonNotificationType, _ receipt: AmazonReceipt, related: [String: String] = [:], core: inout SimCore
  ) {
    guard let endpoint = endpoints[receipt.appPackageName] else { return }
    let relatedJSON =
      "{"
      + related.sorted { $0.key < $1.key }.map { "\(SNSMessage.quoted($0.key)):\(SNSMessage.quoted($0.value))" }
      .joined(separator: ",") + "}"
    let rtn =
      "{\"appPackageName\":\(SNSMessage.quoted(receipt.appPackageName)),"
      + "\"notificationType\":\(SNSMessage.quoted(type.rawValue)),\"appUserId\":\(SNSMessage.quoted(receipt.userId)),"
      + "\"receiptId\":\(SNSMessage.quoted(receipt.receiptId)),\"relatedReceipts\":\(relatedJSON),"
      + "\"timestamp\":\(core.nowMs),\"betaProductTransaction\":\(receipt.betaProduct)}"
    let message = SNSMessage(
      type: SNSMessage.notification, messageId: UUID().uuidString.lowercased(), topicArn: endpoint.topicArn,
      message: rtn, timestamp: GoogleTimeText.rfc3339(core.nowMs),
      unsubscribeURL: "\(baseURL)/sns/unsubscribe?Action=Unsubscribe&SubscriptionArn="
        + Self.queryEncoded(endpoint.subscriptionArn), signatureVersion: config.signatureVersion,
      signingCertURL: baseURL + AmazonSNSSigner.certificatePath)
    let outgoing = outgoing(message, endpoint: endpoint, subject: receipt.receiptId, core: core)
    if endpoint.confirmed {
      core.outbox.append(outgoing)
    } else {
      endpoints[receipt.appPackageName]?.held.append(outgoing)
    }
  }

  /// How many notifications wait for the app's endpoint to confirm.
  func heldCount(_ packageName: String) -> Int { endpoints[packageName]?.held.count ?? 0 }

  private func outgoing(_ message: SNSMessage, endpoint: AmazonEndpoint, subject: String, core: SimCore)
    -> OutgoingNotification
  {
    let signature = signer.sign(message.canonicalString, signatureVersion: message.signatureVersion)
    var headers = [
      ("Content-Type", "text/plain; charset=UTF-8"), ("x-amz-sns-message-type", message.type),
      ("x-amz-sns-message-id", message.messageId), ("x-amz-sns-topic-arn", message.topicArn),
      ("User-Agent", "Amazon Simple Notification Service Agent"),
    ]
    if message.type == SNSMessage.notification {
      headers.append(("x-amz-sns-subscription-arn", endpoint.subscriptionArn))
    }
    let rtnType =
      message.type == SNSMessage.notification
      ? (Self.notificationType(in: message.message) ?? message.type) : message.type
    return OutgoingNotification(
      store: Self.name, url: endpoint.url, body: message.body(signature: signature),
      notificationUUID: message.messageId, notificationType: rtnType, subtype: nil, subject: subject,
      virtualTimeMs: core.nowMs, headers: headers)
  }

  private static func notificationType(in rtn: String) -> String? {
    let object = try? JSONSerialization.jsonObject(with: Data(rtn.utf8)) as? [String: Any]
    return object?["notificationType"] as? String
  }

  static func queryEncoded(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }
}

/// The Real-Time Notification types Amazon documents.
enum AmazonNotificationType: String, Sendable {
  case subscriptionPurchased = "SUBSCRIPTION_PURCHASED"
  case subscriptionRenewed = "SUBSCRIPTION_RENEWED"
  case subscriptionConvertedFreeTrialToPaid = "SUBSCRIPTION_CONVERTED_FREE_TRIAL_TO_PAID"
  case subscriptionCancelled = "SUBSCRIPTION_CANCELLED"
  case subscriptionExpired = "SUBSCRIPTION_EXPIRED"
  case subscriptionInGracePeriod = "SUBSCRIPTION_IN_GRACE_PERIOD"
  case subscriptionOutOfGracePeriod = "SUBSCRIPTION_OUT_OF_GRACE_PERIOD"
  case subscriptionAutoRenewalOn = "SUBSCRIPTION_AUTO_RENEWAL_ON"
  case subscriptionAutoRenewalOff = "SUBSCRIPTION_AUTO_RENEWAL_OFF"
  case subscriptionModifiedImmediate = "SUBSCRIPTION_MODIFIED_IMMEDIATE"
  case subscriptionModifiedDeferred = "SUBSCRIPTION_MODIFIED_DEFERRED"
  case entitlementPurchased = "ENTITLEMENT_PURCHASED"
  case entitlementCancelled = "ENTITLEMENT_CANCELLED"
  case consumablePurchased = "CONSUMABLE_PURCHASED"
  case consumableCancelled = "CONSUMABLE_CANCELLED"
}

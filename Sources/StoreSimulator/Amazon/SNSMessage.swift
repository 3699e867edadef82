import Foundation

/// An Amazon SNS HTTP(S) delivery: a `Notification` or a `SubscriptionConfirmation`, with the
/// canonical string SNS signs and the JSON body (SNS's key order) it POSTs.
struct SNSMessage: Sendable {
  var type: String
  var messageId: String
  var topicArn: String
  var subject: String?
  var message: String
  /// ISO 8601 UTC with milliseconds.
  var timestamp: String
  var token: String?
  var subscribeURL: String?
  var unsubscribeURL: String?
  var signatureVersion: Int
  var signingCertURL: String

  static let notification = "Notification"
  static let subscriptionConfirmation = "SubscriptionConfirmation"

  /// The string to sign, as AWS defines it: `Key\nValue\n` for each field in this order. A
  /// Notification signs Message, MessageId, Subject (only when present), Timestamp, TopicArn
  /// and Type; a (Un)SubscriptionConfirmation signs Message, MessageId, SubscribeURL,
  /// Timestamp, Token, TopicArn and Type.
  var canonicalString: String {
    var fields: [(String, String)] = [("Message", message), ("MessageId", messageId)]
    if type == Self.notification {
      if let subject { fields.append(("Subject", subject)) }
      fields += [("Timestamp", timestamp), ("TopicArn", topicArn), ("Type", type)]
    } else {
      fields += [
        ("SubscribeURL", subscribeURL ?? ""), ("Timestamp", timestamp), ("Token", token ?? ""),
        ("TopicArn", topicArn), ("Type", type),
      ]
    }
    return fields.map { "\($0.0)\n\($0.1)\n" }.joined()
  }

  /// The POST body, signed with `signature` (base64), keys in the order SNS writes them.
  func body(signature: String) -> [UInt8] {
    var fields: [(String, String)] = [("Type", type), ("MessageId", messageId)]
    if let token { fields.append(("Token", token)) }
    fields.append(("TopicArn", topicArn))
    if let subject { fields.append(("Subject", subject)) }
    fields.append(("Message", message))
    if let subscribeURL { fields.append(("SubscribeURL", subscribeURL)) }
    fields += [
      ("Timestamp", timestamp), ("SignatureVersion", String(signatureVersion)), ("Signature", signature),
      ("SigningCertURL", signingCertURL),
    ]
    if let unsubscribeURL { fields.append(("UnsubscribeURL", unsubscribeURL)) }
    let lines = fields.map { "  \(Self.quoted($0.0)) : \(Self.quoted($0.1))" }
    return Array(("{\n" + lines.joined(separator: ",\n") + "\n}").utf8)
  }

  /// `text` as a JSON string literal (slashes unescaped, as SNS writes URLs).
  static func quoted(_ text: String) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
  }
}

import Foundation

/// The body Cloud Pub/Sub POSTs to a push endpoint: one message and the subscription it came
/// through. Pub/Sub writes some keys twice (`messageId` and `message_id`); either is read.
public struct PubSubPushEnvelope: Sendable, Hashable, Decodable {
  public var message: PubSubMessage?
  /// "projects/…/subscriptions/…".
  public var subscription: String?

  public init() {}

  /// The `DeveloperNotification` in `message.data`.
  public func developerNotification() throws(DeveloperNotificationError) -> DeveloperNotification {
    guard let data = message?.data else { throw .missingData }
    return try DeveloperNotification.decode(base64: data)
  }
}

/// `message` of a push body.
public struct PubSubMessage: Sendable, Hashable, Decodable {
  /// Base64 of the published bytes (here a `DeveloperNotification`'s JSON).
  public var data: String?
  /// Unique per message within a topic: the key for deduplicating redeliveries.
  public var messageId: String?
  /// RFC 3339 time the message was published, in ms.
  public var publishTime: Int64?
  public var attributes: [String: String]?
  public var orderingKey: String?

  private enum CodingKeys: String, CodingKey {
    case data, messageId, publishTime, attributes, orderingKey
    case messageIdSnake = "message_id"
    case publishTimeSnake = "publish_time"
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    data = try container.decodeIfPresent(String.self, forKey: .data)
    messageId =
      try container.decodeIfPresent(String.self, forKey: .messageId)
      ?? container.decodeIfPresent(String.self, forKey: .messageIdSnake)
    let time =
      try container.decode(GoogleTime.self, forKey: .publishTime).wrappedValue
      ?? container.decode(GoogleTime.self, forKey: .publishTimeSnake).wrappedValue
    publishTime = time
    attributes = try container.decodeIfPresent([String: String].self, forKey: .attributes)
    orderingKey = try container.decodeIfPresent(String.self, forKey: .orderingKey)
  }
}

/// Why a body is not a `DeveloperNotification`. Such a body is acknowledged (so Pub/Sub stops
/// redelivering it), logged and counted, and grants nothing.
public enum DeveloperNotificationError: Error, Sendable, Hashable {
  /// The envelope has no `message.data`.
  case missingData
  /// `message.data` is not base64.
  case invalidBase64
  /// The bytes are not a JSON object of a DeveloperNotification (the decoder's description).
  case notADeveloperNotification(String)
  /// A JSON object without `packageName` and without any notification member.
  case emptyNotification
}

extension DeveloperNotification {
  /// Decodes a notification from `message.data` (base64, standard or URL-safe, padded or not).
  public static func decode(base64: String) throws(DeveloperNotificationError) -> DeveloperNotification {
    var text = base64.trimmingCharacters(in: .whitespacesAndNewlines)
      .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    if text.count % 4 != 0 { text += String(repeating: "=", count: 4 - text.count % 4) }
    guard let bytes = Data(base64Encoded: text) else { throw .invalidBase64 }
    return try decode(json: bytes)
  }

  /// Decodes a notification from its JSON bytes.
  public static func decode(json bytes: Data) throws(DeveloperNotificationError) -> DeveloperNotification {
    let notification: DeveloperNotification
    do {
      notification = try JSONDecoder().decode(DeveloperNotification.self, from: bytes)
    } catch {
      throw .notADeveloperNotification(String(describing: error))
    }
    guard notification.packageName != nil || notification.kind != .unknown else { throw .emptyNotification }
    return notification
  }
}

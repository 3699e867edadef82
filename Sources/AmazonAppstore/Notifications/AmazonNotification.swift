import Foundation

/// A Real-Time Notification: the JSON in an SNS `Notification`'s `Message`
/// (https://developer.amazon.com/docs/in-app-purchasing/real-time-notifications.html).
///
/// It is only a trigger: the state comes from reading the receipt again through RVS. Decoding is
/// tolerant (key case, `null`, numbers as strings, unknown fields ignored).
public struct AmazonNotification: Sendable, Hashable, Decodable {
  public var appPackageName: String?
  /// The Amazon user id of the customer (RVS's `userId`).
  public var appUserId: String?
  public var receiptId: String?
  /// Raw `notificationType`, e.g. SUBSCRIPTION_PURCHASED.
  public var notificationType: String?
  /// Receipts related to this one, by Amazon's key (for SUBSCRIPTION_MODIFIED_IMMEDIATE, the
  /// cancelled receipt). Amazon sends an object (`{}` when empty) or an empty array.
  public var relatedReceipts: [String: String]
  /// The related receipt ids, whatever shape `relatedReceipts` had.
  public var relatedReceiptIds: [String]
  /// When Amazon sent the notification, ms since the epoch.
  public var timestamp: Int64?
  /// Whether the purchase was of a beta product (Live App Testing).
  public var betaProductTransaction: Bool?

  public init(
    appPackageName: String? = nil, appUserId: String? = nil, receiptId: String? = nil,
    notificationType: String? = nil, relatedReceipts: [String: String] = [:], timestamp: Int64? = nil,
    betaProductTransaction: Bool? = nil
  ) {
    self.appPackageName = appPackageName
    self.appUserId = appUserId
    self.receiptId = receiptId
    self.notificationType = notificationType
    self.relatedReceipts = relatedReceipts
    self.relatedReceiptIds = relatedReceipts.keys.sorted().compactMap { relatedReceipts[$0] }
    self.timestamp = timestamp
    self.betaProductTransaction = betaProductTransaction
  }

  public init(from decoder: any Decoder) throws {
    var object = try LenientObject(from: decoder)
    appPackageName = object.string("appPackageName")
    appUserId = object.string("appUserId")
    receiptId = object.string("receiptId")
    notificationType = object.string("notificationType")
    timestamp = object.int64("timestamp")
    betaProductTransaction = object.bool("betaProductTransaction")
    let related = object.decode(RelatedReceipts.self, "relatedReceipts")
    relatedReceipts = related?.byKey ?? [:]
    relatedReceiptIds = related?.ids ?? []
  }

  /// Decodes the RTN inside an SNS `Message` string; `nil` when it is not a JSON object.
  public init?(message: String) {
    guard let value = try? JSONDecoder().decode(AmazonNotification.self, from: Data(message.utf8)) else {
      return nil
    }
    self = value
  }

  public var typedNotificationType: AmazonNotificationType? {
    notificationType.flatMap { AmazonNotificationType(rawValue: $0.uppercased()) }
  }
}

/// `relatedReceipts`: an object of receipt ids by key, or an array of receipt ids.
private struct RelatedReceipts: Decodable {
  var byKey: [String: String] = [:]
  var ids: [String] = []

  init(from decoder: any Decoder) throws {
    if let object = try? decoder.container(keyedBy: AnyKey.self) {
      for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
        guard let id = try? object.decode(String.self, forKey: key) else { continue }
        byKey[key.stringValue] = id
        ids.append(id)
      }
    } else {
      var list = try decoder.unkeyedContainer()
      while !list.isAtEnd {
        if let id = try? list.decode(String.self) { ids.append(id) } else { _ = try? list.decode(Ignored.self) }
      }
    }
  }
}

private struct Ignored: Decodable {
  init(from decoder: any Decoder) throws {}
}

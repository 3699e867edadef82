import TollgateCore

/// One item of the durable inbox.
public struct InboxItem: Sendable, Hashable {
  public enum Kind: String, Sendable, Hashable {
    case purchase
    case notification
  }

  public var id: Int64
  public var kind: Kind
  /// For notifications, the route's name (`app_store.v2`, `app_store.v1`); for purchases, the store.
  public var store: String
  public var userId: String?
  public var payload: [UInt8]
  public var attempts: Int
  public var receivedAtMs: Int64

  public init(
    id: Int64, kind: Kind, store: String, userId: String?, payload: [UInt8], attempts: Int, receivedAtMs: Int64
  ) {
    self.id = id
    self.kind = kind
    self.store = store
    self.userId = userId
    self.payload = payload
    self.attempts = attempts
    self.receivedAtMs = receivedAtMs
  }
}

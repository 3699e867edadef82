/// One HTTP endpoint a store posts notifications to. The intake stores a body durably under the
/// route's name, deduplicated by the key the route reads from it; nothing in the body is trusted
/// until the gateway verifies it.
public struct NotificationRoute: Sendable {
  /// Stored with each inbox item (`app_store.v2`); the worker finds the gateway by it.
  public var name: String
  /// The HTTP path (`/notifications/apple/v2`).
  public var path: String
  /// What the body claims to be, for deduplication (a notification's UUID, else a hash of the
  /// body); nil when the body is malformed, which is answered 400.
  public var dedupeKey: @Sendable (_ body: [UInt8]) -> String?

  public init(name: String, path: String, dedupeKey: @escaping @Sendable (_ body: [UInt8]) -> String?) {
    self.name = name
    self.path = path
    self.dedupeKey = dedupeKey
  }
}

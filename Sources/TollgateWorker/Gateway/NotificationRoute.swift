/// One HTTP endpoint a store posts notifications to. The intake asks the route whether to store
/// a request (`admit`), and stores it durably under the route's name, deduplicated by the key the
/// route names; what the body says is believed only when the gateway verifies it.
public struct NotificationRoute: Sendable {
  /// Stored with each inbox item (`app_store.v2`); the worker finds the gateway by it.
  public var name: String
  /// The HTTP path (`/notifications/apple/v2`).
  public var path: String
  /// Decides, before anything is stored, whether the request is stored, acknowledged without
  /// being stored, or refused.
  public var admit: @Sendable (_ request: NotificationRequest) async -> NotificationAdmission
  /// The largest body the store ever sends on this route, when it is below the worker's
  /// `worker.maxNotificationBytes`: a larger one is refused (413) before it is read in full.
  public var maximumBodyBytes: Int?

  public init(
    name: String, path: String, maximumBodyBytes: Int? = nil,
    admit: @escaping @Sendable (_ request: NotificationRequest) async -> NotificationAdmission
  ) {
    self.name = name
    self.path = path
    self.maximumBodyBytes = maximumBodyBytes
    self.admit = admit
  }

  /// A route whose bodies are verified later, from what they hold (signed payloads): stored
  /// under the key `dedupeKey` reads from the body (a notification's UUID, else a hash of the
  /// body); nil when the body is malformed, which is answered 400.
  public init(name: String, path: String, dedupeKey: @escaping @Sendable (_ body: [UInt8]) -> String?) {
    self.init(name: name, path: path) { request in
      dedupeKey(request.body).map { .store(dedupeKey: $0) } ?? .refuse(status: 400, reason: "malformed body")
    }
  }
}

/// A notification request as the intake received it: its body and the headers a route may
/// authenticate it by.
public struct NotificationRequest: Sendable {
  public var body: [UInt8]
  /// The `Authorization` header, when present.
  public var authorization: String?

  public init(body: [UInt8], authorization: String? = nil) {
    self.body = body
    self.authorization = authorization
  }
}

/// What the intake does with a notification request.
public enum NotificationAdmission: Sendable, Hashable {
  /// Stored durably (once per key), then answered 200.
  case store(dedupeKey: String)
  /// Answered 200 without being stored: authentic, but nothing the worker acts on (a body that
  /// is not a notification: refusing it would only make the sender redeliver it forever).
  /// `reason` is logged and counted.
  case acknowledge(reason: String)
  /// Answered with `status` (401/403 unauthenticated, 400 malformed, 503 cannot tell now, so the
  /// sender retries) and not stored; `reason` is logged (never the credentials) and counted.
  case refuse(status: Int, reason: String)
}

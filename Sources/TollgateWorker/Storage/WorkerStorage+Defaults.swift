import TollgateCore

/// The shorter forms of `WorkerStorage`'s calls (tools, tests, callers without a lease or a request
/// id), and the defaults a storage may keep.
extension WorkerStorage {
  public func close() async {}

  /// Stores a notification that came with no request id (tools, tests).
  public func storeNotification(route: String, dedupeKey: String, payload: [UInt8], nowMs: Int64) async throws
    -> (id: Int64, duplicate: Bool)
  {
    try await storeNotification(route: route, dedupeKey: dedupeKey, payload: payload, requestId: nil, nowMs: nowMs)
  }

  /// Claims up to `limit` due items, excluding none (`claimInbox(nowMs:limit:leaseMs:excluding:)`).
  public func claimInbox(nowMs: Int64, limit: Int, leaseMs: Int64) async throws -> [InboxItem] {
    try await claimInbox(nowMs: nowMs, limit: limit, leaseMs: leaseMs, excluding: [])
  }

  /// The writes of webhook delivery without a job lease (tools, tests): unfenced by one.
  public func advanceWebhookCursor(endpoint: String, to eventId: Int64, nowMs: Int64) async throws {
    try await advanceWebhookCursor(endpoint: endpoint, to: eventId, nowMs: nowMs, lease: nil)
  }

  public func recordWebhookFailure(
    endpoint: String, eventId: Int64, error: String, limit: WebhookRetryLimit, nowMs: Int64
  ) async throws -> WebhookFailureRecord {
    try await recordWebhookFailure(
      endpoint: endpoint, eventId: eventId, error: error, limit: limit, nowMs: nowMs, lease: nil)
  }

  public func finishWebhookRedelivery(
    endpoint: String, eventId: Int64, error: String?, limit: WebhookRetryLimit, retryAtMs: Int64, nowMs: Int64
  ) async throws {
    try await finishWebhookRedelivery(
      endpoint: endpoint, eventId: eventId, error: error, limit: limit, retryAtMs: retryAtMs, nowMs: nowMs,
      lease: nil)
  }
}

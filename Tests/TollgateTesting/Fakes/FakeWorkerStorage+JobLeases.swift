import TollgateWorker

/// The fake's job leases (`SQLiteWorkerStorage+JobLeases`, in memory) and what they fence.
package struct FakeJobLeaseBook: Sendable {
  package var leases: [String: JobLease] = [:]
  /// How many prunes were written (each fenced by housekeeping's lease when it carried one).
  package var prunes = 0
}

extension FakeWorkerStorage {
  package func takeJobLease(name: String, ownerId: String, nowMs: Int64, ttlMs: Int64) -> JobLease? {
    let generation: Int64
    if let current = jobLeaseBook.leases[name] {
      if current.ownerId == ownerId {
        generation = current.generation
      } else if current.ownerId.isEmpty || current.expiresAtMs <= nowMs {
        generation = current.generation + 1
      } else {
        return nil
      }
    } else {
      generation = 1
    }
    let lease = JobLease(name: name, ownerId: ownerId, generation: generation, expiresAtMs: nowMs + ttlMs)
    jobLeaseBook.leases[name] = lease
    return lease
  }

  package func releaseJobLease(_ lease: JobLease) {
    guard let current = jobLeaseBook.leases[lease.name], current.isSameHolding(as: lease) else { return }
    jobLeaseBook.leases[lease.name] = JobLease(
      name: lease.name, ownerId: "", generation: current.generation, expiresAtMs: 0)
  }

  /// Throws `.leaseLost` unless `lease` (when set) is still held as it says.
  package func checkJobLease(_ lease: JobLease?) throws {
    guard let lease else { return }
    let current = jobLeaseBook.leases[lease.name]
    guard let current, current.isSameHolding(as: lease) else { throw JobLease.lost(lease, current: current) }
  }

  package func advanceWebhookCursor(endpoint: String, to eventId: Int64, nowMs: Int64, lease: JobLease?) throws {
    try checkJobLease(lease)
    advanceWebhookCursor(endpoint: endpoint, to: eventId, nowMs: nowMs)
  }

  package func recordWebhookFailure(
    endpoint: String, eventId: Int64, error: String, limit: WebhookRetryLimit, nowMs: Int64, lease: JobLease?
  ) throws -> WebhookFailureRecord {
    try checkJobLease(lease)
    return recordWebhookFailure(endpoint: endpoint, eventId: eventId, error: error, limit: limit, nowMs: nowMs)
  }

  package func finishWebhookRedelivery(
    endpoint: String, eventId: Int64, error: String?, limit: WebhookRetryLimit, retryAtMs: Int64, nowMs: Int64,
    lease: JobLease?
  ) throws {
    try checkJobLease(lease)
    finishWebhookRedelivery(
      endpoint: endpoint, eventId: eventId, error: error, limit: limit, retryAtMs: retryAtMs, nowMs: nowMs)
  }
}

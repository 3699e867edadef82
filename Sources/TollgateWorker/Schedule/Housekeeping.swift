import Logging
import TollgateCore

/// Once a day (on the worker's clock), deletes what is past its use: finished inbox items, old
/// change-feed entries (the newest stays, and so does every entry a `serve` replica seen within
/// `feedReaderExpiryMs` has not read; a GDPR erase's entry and all before it once
/// `erasureFeedDelayMs` old), and events every webhook endpoint has acknowledged,
/// each after its retention (`WorkerSettings`). Nothing here touches subscriptions or anyone's
/// entitlements.
struct Housekeeping: Sendable {
  let storage: any WorkerStorage
  let settings: WorkerSettings
  /// The configured webhook endpoints, whose cursors hold events back.
  let webhookEndpoints: [String]
  let nowMs: @Sendable () -> Int64
  let logger: Logger

  /// Prunes now and then once a day, while this worker holds housekeeping's job lease (one
  /// worker of those on the database prunes: `SingletonJobs`), each prune fenced by it.
  func run(jobs: SingletonJobs) async {
    await jobs.run(JobLease.housekeeping) { lease in
      try await ClockSchedule.every(86_400_000, nowMs: nowMs) { now in try await pruneOnce(nowMs: now, lease: lease) }
    }
  }

  /// One prune without a job lease (tests); nil when it failed (logged).
  @discardableResult
  func pruneOnce(nowMs now: Int64) async -> PruneCounts? { (try? await pruneOnce(nowMs: now, lease: nil)) ?? nil }

  /// One prune fenced by `lease`; nil when it failed (logged). Throws only `StorageConflict`
  /// (`.leaseLost`): `lease` is no longer this worker's, and nothing was deleted.
  @discardableResult
  func pruneOnce(nowMs now: Int64, lease: JobLease?) async throws(StorageConflict) -> PruneCounts? {
    do {
      var delivered: Int64?
      for endpoint in webhookEndpoints {
        let cursor = try await storage.webhookCursor(endpoint: endpoint, nowMs: now)
        delivered = min(delivered ?? cursor, cursor)
      }
      let counts = try await storage.prune(
        PrunePlan(
          finishedInboxBeforeMs: now - settings.inboxRetentionMs,
          changeFeedBeforeMs: now - settings.changeFeedRetentionMs,
          eventsBeforeMs: now - settings.eventRetentionMs, eventsDeliveredThroughId: delivered,
          changeFeedReadersSeenSinceMs: now - settings.feedReaderExpiryMs,
          erasureMarkersBeforeMs: now - settings.erasureFeedDelayMs, lease: lease))
      logger.info(
        "housekeeping",
        metadata: [
          "pruned.inbox": "\(counts.inbox)", "pruned.change_feed": "\(counts.changeFeed)",
          "pruned.events": "\(counts.events)", "pruned.feed_readers": "\(counts.feedReaders)",
        ])
      return counts
    } catch let conflict as StorageConflict where conflict.kind == .leaseLost {
      throw conflict
    } catch {
      logger.error("housekeeping failed; it runs again tomorrow", metadata: ["error": "\(error)"])
      return nil
    }
  }
}

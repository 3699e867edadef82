import Logging
import TollgateCore

/// Once a day (on the worker's clock), deletes what is past its use: finished inbox items, old
/// change-feed entries (the newest stays), and events every webhook endpoint has acknowledged,
/// each after its retention (`WorkerSettings`). Nothing here touches subscriptions or anyone's
/// entitlements.
struct Housekeeping: Sendable {
  let storage: any WorkerStorage
  let settings: WorkerSettings
  /// The configured webhook endpoints, whose cursors hold events back.
  let webhookEndpoints: [String]
  let nowMs: @Sendable () -> Int64
  let logger: Logger

  func run() async {
    await ClockSchedule.every(86_400_000, nowMs: nowMs) { now in await pruneOnce(nowMs: now) }
  }

  @discardableResult
  func pruneOnce(nowMs now: Int64) async -> PruneCounts? {
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
          eventsBeforeMs: now - settings.eventRetentionMs, eventsDeliveredThroughId: delivered))
      logger.info(
        "housekeeping",
        metadata: [
          "pruned.inbox": "\(counts.inbox)", "pruned.change_feed": "\(counts.changeFeed)",
          "pruned.events": "\(counts.events)",
        ])
      return counts
    } catch {
      logger.error("housekeeping failed; it runs again tomorrow", metadata: ["error": "\(error)"])
      return nil
    }
  }
}

import Logging
import Testing
import TollgateCore

@testable import TollgateWorker

@Suite("Housekeeping")
struct HousekeepingTests {
  static let day = WorkerParts.day

  @Test("old events go only once every configured webhook endpoint has them")
  func eventsWaitForEveryEndpoint() async throws {
    let parts = WorkerParts()
    for user in ["a", "b", "c"] {
      try await parts.reconciler.apply(
        parts.boughtNow("otx-\(user)"), observedAtMs: parts.now, claimant: user, completes: nil, reason: "t")
    }
    let events = await parts.storage.events(after: 0, limit: 10)
    #expect(events.count == 3)
    // Two endpoints; the slower one has only the first event.
    try await parts.storage.advanceWebhookCursor(endpoint: "fast", to: events[2].id, nowMs: 0)
    try await parts.storage.advanceWebhookCursor(endpoint: "slow", to: events[0].id, nowMs: 0)
    var settings = parts.settings
    settings.eventRetentionMs = Self.day
    let housekeeping = Housekeeping(
      storage: parts.storage, settings: settings, webhookEndpoints: ["fast", "slow"], nowMs: parts.clock.function,
      logger: Logger(label: "test.housekeeping", factory: { _ in SwiftLogNoOpLogHandler() }))
    // Not old enough yet: nothing goes.
    #expect(await housekeeping.pruneOnce(nowMs: parts.now)?.events == 0)
    let counts = await housekeeping.pruneOnce(nowMs: parts.now + 2 * Self.day)
    #expect(counts?.events == 1)
    #expect(await parts.storage.events(after: 0, limit: 10).map(\.id) == events.dropFirst().map(\.id))
  }
}

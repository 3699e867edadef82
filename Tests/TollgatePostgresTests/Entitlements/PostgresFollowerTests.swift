import Logging
import Testing
import TollgateCore
import TollgateIndex
import TollgatePostgres
import TollgateStorage
import TollgateTesting

/// The service's index following a PostgreSQL feed (`ChangeFeedFollower` over
/// `PostgresEntitlementStorage`), with writes from another pool, as a replica sees a worker's.
@Suite("Change-feed follower on PostgreSQL")
struct PostgresFollowerTests {
  @Test("a write through another pool shows up in the running follower's index, also after its listener was killed")
  func followsAnotherPool() async throws {
    // No fallback look within the test: what wakes the follower is a notification or a reconnect.
    try await PostgresEntitlements.withStorages(count: 2, fallbackInterval: .seconds(3_600)) { _, storages in
      let (reader, writer) = (storages[0], storages[1])
      try await writer.replaceEntitlements(
        userId: "a", with: [.sample(userId: "a", expiresAtMs: 100)], reason: "t", nowMs: 1)
      let index = EntitlementIndex()
      let clock = ManualClock(nowMs: 1_000)
      let follower = ChangeFeedFollower(
        storage: reader, index: index, nowMs: clock.function, logger: PostgresEntitlements.logger)
      try await follower.loadSnapshot()
      #expect(index.records(for: "a").count == 1)
      let running = Task { try await follower.run() }
      defer { running.cancel() }
      #expect(try await PostgresEntitlements.waitForListeners(writer, 1))

      let seq = try await writer.replaceEntitlements(
        userId: "b",
        with: [.sample(userId: "b", expiresAtMs: 200), .sample(userId: "b", entitlement: "pro", expiresAtMs: 200)],
        reason: "t", nowMs: 2)
      try await writer.replaceEntitlements(userId: "a", with: [], reason: "revoked", nowMs: 3)
      #expect(await follower.waitUntilApplied(seq + 1, timeout: .seconds(20)))
      #expect(index.records(for: "a").isEmpty)
      #expect(index.records(for: "b").count == 2)

      // The listening connection dies; a write lands while it is down or just after it is back.
      #expect(try await PostgresEntitlements.killListeners(writer) == 1)
      let later = try await writer.replaceEntitlements(
        userId: "c", with: [.sample(userId: "c", expiresAtMs: 300)], reason: "t", nowMs: 4)
      #expect(await follower.waitUntilApplied(later, timeout: .seconds(20)))
      #expect(index.records(for: "c").count == 1)
      #expect(try await PostgresEntitlements.waitForListeners(writer, 1))
      let last = try await writer.replaceEntitlements(userId: "c", with: [], reason: "refund", nowMs: 5)
      #expect(await follower.waitUntilApplied(last, timeout: .seconds(20)))
      #expect(index.records(for: "c").isEmpty)
      #expect(follower.trouble == nil)
    }
  }

  @Test("a feed rewritten under the follower (an older copy restored) reloads the index from a snapshot")
  func reloadsARewrittenFeed() async throws {
    try await PostgresEntitlements.withStorages(count: 2, fallbackInterval: .milliseconds(100)) { _, storages in
      let (reader, writer) = (storages[0], storages[1])
      for user in ["a", "b"] {
        try await writer.replaceEntitlements(
          userId: user, with: [.sample(userId: user, expiresAtMs: 100)], reason: "t", nowMs: 1)
      }
      let index = EntitlementIndex()
      let follower = ChangeFeedFollower(
        storage: reader, index: index, nowMs: { 1_000 }, logger: PostgresEntitlements.logger)
      try await follower.loadSnapshot()
      let running = Task { try await follower.run() }
      defer { running.cancel() }
      // As a restore of an older copy leaves it: b's write gone, the feed behind the index.
      _ = try await writer.database.query("DELETE FROM entitlements WHERE user_id = 'b'")
      _ = try await writer.database.query("DELETE FROM change_feed WHERE user_id = 'b'")
      #expect(await eventually(timeout: .seconds(20)) { index.records(for: "b").isEmpty } != nil)
      #expect(index.records(for: "a").count == 1)
    }
  }
}

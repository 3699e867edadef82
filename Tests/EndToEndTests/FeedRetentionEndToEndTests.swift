import Foundation
import Logging
import Testing
import TollgateClient
import TollgateCore
import TollgateIndex
import TollgateSQLite
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 27, retention: a `serve` replica records where it stands in the change feed
/// (`feed_readers`), and the worker's housekeeping never prunes an entry a replica seen lately
/// has not read. A replica away longer than the reader expiry is not waited for: its position
/// may be pruned, and it reloads its index.
@Suite("Change-feed retention and its readers")
struct FeedRetentionEndToEndTests {
  /// One row of `feed_readers`.
  struct Reader: Equatable {
    var id: String
    var seq: Int64
  }

  static func readers(_ path: String) throws -> [Reader] {
    try Connection(path: path).prepare("SELECT reader_id, seq FROM feed_readers ORDER BY reader_id").rows {
      Reader(id: $0.string(at: 0), seq: $0.int64(at: 1))
    }
  }

  static func record(_ user: String) -> [EntitlementRecord] {
    [.sample(userId: user, expiresAtMs: SystemClock.nowMs() + 86_400_000)]
  }

  @Test(
    "a replica held still records its position; the worker's prune keeps all it has not read; the row goes on SIGTERM")
  func pruneWaitsForAReplicaBehind() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-feed-retention")
    let path = workers.database
    let storage = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    // Two entries written long ago (at_ms 1: past every retention); the replica loads both.
    _ = try await storage.replaceEntitlements(userId: "old-0", with: Self.record("old-0"), reason: "t", nowMs: 1)
    let loaded = try await storage.replaceEntitlements(
      userId: "old-1", with: Self.record("old-1"), reason: "t", nowMs: 1)
    // A replica that crashed long ago at the start of the feed: expired, it holds nothing back.
    try await storage.recordFeedPosition(readerId: "crashed", seq: 0, nowMs: 1)
    let replica = try await ServeReplica.start(database: path)
    let pid = replica.process.process.processIdentifier
    var worker: ChildProcess?
    do {
      // The replica records its position as soon as it serves.
      let recorded = try await eventually(timeout: .seconds(10)) {
        try Self.readers(path).contains { $0.id != "crashed" }
      }
      #expect(recorded != nil, "the replica recorded its position")
      let own = try #require(try Self.readers(path).first { $0.id != "crashed" })
      #expect(own.seq == loaded, "the replica's position is the head it loaded")
      #expect(own.id.contains(":\(pid):"), "the reader id names the process: \(own.id)")

      // Held still (SIGSTOP), the replica reads nothing more while five old entries are written.
      _ = Glibc.kill(pid, SIGSTOP)
      var written: [Int64] = []
      for n in 0..<5 {
        written.append(
          try await storage.replaceEntitlements(
            userId: "late-\(n)", with: Self.record("late-\(n)"), reason: "t", nowMs: 2))
      }
      // A worker starts; its housekeeping prunes at once (the expired reader's row goes then).
      worker = try await workers.start(create: false).process
      let pruned = try await eventually(timeout: .seconds(20)) {
        try !Self.readers(path).contains { $0.id == "crashed" }
      }
      #expect(pruned != nil, "the worker's housekeeping pruned")
      #expect(
        try await storage.changes(after: 0, limit: 100).map(\.seq) == [loaded] + written,
        "only the entry below the replica's position went; all it has not read stays")

      // Let go, the replica follows on from its position: every late write is served.
      _ = Glibc.kill(pid, SIGCONT)
      let client = TollgateClient(host: "127.0.0.1", port: replica.port)
      let caughtUp = try await eventually(timeout: .seconds(10)) {
        try await client.isSubscriber(userId: "late-4", entitlement: "premium").active
      }
      #expect(caughtUp != nil, "the replica served the newest write")
      for n in 0..<5 {
        #expect(try await client.isSubscriber(userId: "late-\(n)", entitlement: "premium").active, "late-\(n)")
      }
      #expect(try await client.isSubscriber(userId: "old-1", entitlement: "premium").active)
      await client.close()

      // SIGTERM: the replica removes its row on the way out.
      await replica.stop()
      #expect(try Self.readers(path) == [], "the stopped replica's row is gone")
      worker?.terminate()
      let finished = worker?.finish()
      #expect(finished?.status == 0, "the worker stopped cleanly: \(finished?.stderr ?? "")")
    } catch {
      _ = Glibc.kill(pid, SIGCONT)
      await replica.stop()
      worker?.terminate()
      _ = worker?.finish()
      await workers.remove()
      throw error
    }
    await workers.remove()
  }

  @Test("a follower whose position was pruned (no position recorded) finds its entry missing and reloads the index")
  func followerPrunedPastReloads() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-feed-pruned")
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let storage = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    _ = try await storage.replaceEntitlements(userId: "a", with: Self.record("a"), reason: "t", nowMs: 1)
    let follower = ChangeFeedFollower(
      storage: try SQLiteEntitlementStorage(path: path, nowMs: 1), index: EntitlementIndex(), nowMs: SystemClock.nowMs,
      logger: Logger(label: "feed-pruned"))
    try await follower.loadSnapshot()
    for user in ["b", "c", "d"] {
      _ = try await storage.replaceEntitlements(userId: user, with: Self.record(user), reason: "t", nowMs: 1)
    }
    // Away longer than the reader expiry: nothing holds the feed, and all but the newest goes.
    let counts = try await SQLiteWorkerStorage(path: path, nowMs: 1).prune(
      PrunePlan(
        finishedInboxBeforeMs: 0, changeFeedBeforeMs: 1_000_000, eventsBeforeMs: 0, eventsDeliveredThroughId: nil))
    #expect(counts.changeFeed == 3)
    _ = try await follower.poll()
    #expect(
      ["a", "b", "c", "d"].allSatisfy { !follower.index.records(for: $0).isEmpty },
      "the reloaded index has every user, those whose entries were pruned too")
    #expect(follower.currentPosition.appliedSeq == 4)
  }
}

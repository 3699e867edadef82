import Logging
import Synchronization
import Testing
import TollgateCore
import TollgateIndex
import TollgateSQLite
import TollgateStorage
import TollgateTesting

@Suite("Change-feed follower")
struct ChangeFeedFollowerTests {
  @Test("the snapshot loads everything; polling applies another writer's changes, removals included")
  func followsAnotherWriter() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let writer = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    try await writer.replaceEntitlements(
      userId: "a", with: [.sample(userId: "a", expiresAtMs: 100)], reason: "t", nowMs: 1)

    let reader = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    let index = EntitlementIndex()
    let follower = ChangeFeedFollower(storage: reader, index: index, nowMs: { 1 }, logger: Logger(label: "test"))
    try await follower.loadSnapshot()
    #expect(index.records(for: "a").count == 1)
    #expect(try await follower.poll() == 0)

    try await writer.replaceEntitlements(
      userId: "b",
      with: [.sample(userId: "b", expiresAtMs: 200), .sample(userId: "b", entitlement: "pro", expiresAtMs: 200)],
      reason: "t", nowMs: 2)
    try await writer.replaceEntitlements(userId: "a", with: [], reason: "revoked", nowMs: 3)
    #expect(try await follower.poll() == 2)
    #expect(index.records(for: "a").isEmpty)
    #expect(index.records(for: "b").count == 2)
    #expect(index.userCount == 1)
    #expect(index.recordCount == 2)
    #expect(follower.currentPosition.appliedSeq == 3)
  }

  /// A follower running in the background over its own reader of a fresh database, its clock at
  /// 1,000 ms, and a writer of the same file (as another process would be).
  struct Running<Reader: EntitlementStorage> {
    let dir: TemporaryDirectory
    let writer: SQLiteEntitlementStorage
    let reader: Reader
    let clock = ManualClock(nowMs: 1_000)
    let follower: ChangeFeedFollower
    let task: Task<Void, any Error>

    init(reader makeReader: (SQLiteEntitlementStorage) -> Reader) async throws {
      dir = try TemporaryDirectory()
      writer = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
      reader = makeReader(try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1))
      let follower = ChangeFeedFollower(
        storage: reader, index: EntitlementIndex(), nowMs: clock.function, logger: Logger(label: "test"))
      try await follower.loadSnapshot()
      self.follower = follower
      task = Task { try await follower.run() }
    }

    func stop() {
      task.cancel()
      dir.remove()
    }

    func write(_ user: String) async throws -> Int64 {
      try await writer.replaceEntitlements(
        userId: user, with: [.sample(userId: user, expiresAtMs: 100)], reason: "t", nowMs: 2)
    }
  }

  @Test("running, it stays fresh while nothing is written and applies a write soon after its commit")
  func runsOnTheProbe() async throws {
    let running = try await Running { $0 }
    defer { running.stop() }
    let follower = running.follower

    // Nothing written: the probe's looks keep the feed's freshness up to date. Loose: the full
    // suite shares two cores with this watcher thread.
    running.clock.set(2_000)
    #expect(await eventually(timeout: .seconds(20)) { follower.currentPosition.lastReadAtMs == 2_000 } != nil)
    #expect(follower.currentPosition.appliedSeq == 0)

    let seq = try await running.write("a")
    #expect(await eventually { follower.currentPosition.appliedSeq == seq } != nil)
    #expect(follower.index.records(for: "a").count == 1)
  }

  @Test("while a read of a seen change is still owed, quiet looks do not make the index look fresh")
  func staleWhileAReadIsOwed() async throws {
    let running = try await Running(reader: StallingStorage.init)
    defer { running.stop() }
    let follower = running.follower
    let stalling = running.reader
    running.clock.set(2_000)
    // Loose: the full suite shares two cores with this watcher thread.
    #expect(await eventually(timeout: .seconds(20)) { follower.currentPosition.lastReadAtMs == 2_000 } != nil)

    stalling.stalled.withLock { $0 = true }
    let seq = try await running.write("a")
    running.clock.set(3_000)
    try await Task.sleep(for: .milliseconds(100))  // many looks, none of which may refresh
    #expect(follower.currentPosition.lastReadAtMs == 2_000)
    #expect(follower.currentPosition.appliedSeq == 0)

    stalling.stalled.withLock { $0 = false }
    #expect(await eventually { follower.currentPosition.appliedSeq == seq } != nil)
    #expect(follower.currentPosition.lastReadAtMs == 3_000)
  }

  @Test("batches larger than the batch size are all applied in one poll")
  func manyChanges() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    let index = EntitlementIndex()
    var config = ChangeFeedFollower.Config.defaults
    config.batchSize = 7
    let follower = ChangeFeedFollower(
      storage: storage, index: index, config: config, nowMs: { 1 }, logger: Logger(label: "test"))
    try await follower.loadSnapshot()
    for n in 0..<30 {
      try await storage.replaceEntitlements(
        userId: "u\(n)", with: [.sample(userId: "u\(n)", expiresAtMs: 9)], reason: "t", nowMs: 1)
    }
    #expect(try await follower.poll() == 30)
    #expect(index.userCount == 30)
  }
}

/// SQLite storage whose change-feed reads wait while `stalled` is set (a slow or stuck read).
final class StallingStorage: EntitlementStorage {
  let base: SQLiteEntitlementStorage
  let stalled = Mutex(false)

  init(_ base: SQLiteEntitlementStorage) { self.base = base }

  func changes(after seq: Int64, limit: Int) async throws -> [ChangeFeedEntry] {
    // A test that forgets to release the stall fails here instead of hanging.
    let released = try await eventually(timeout: .seconds(30)) {
      try Task.checkCancellation()
      return !stalled.withLock { $0 }
    }
    guard released != nil else { throw StillStalled() }
    return try await base.changes(after: seq, limit: limit)
  }

  func streamSnapshot(_ each: @escaping @Sendable (EntitlementRecord) -> Void) async throws -> Int64 {
    try await base.streamSnapshot(each)
  }
  func headSeq() async throws -> Int64 { try await base.headSeq() }
  func feedMark(at seq: Int64) async throws -> FeedMark { try await base.feedMark(at: seq) }
  func problem() -> String? { base.problem() }
  func changeSignals(every interval: Duration, quiet: @escaping @Sendable () -> Void) -> ChangeSignals {
    base.changeSignals(every: interval, quiet: quiet)
  }
  func entitlements(forUsers userIds: [String]) async throws -> [String: [EntitlementRecord]] {
    try await base.entitlements(forUsers: userIds)
  }
  func replaceEntitlements(userId: String, with records: [EntitlementRecord], reason: String, nowMs: Int64) async throws
    -> Int64
  {
    try await base.replaceEntitlements(userId: userId, with: records, reason: reason, nowMs: nowMs)
  }
  func submitPurchase(_ submission: PurchaseSubmission, nowMs: Int64, admission: SubmissionAdmission) async throws
    -> Int64
  {
    try await base.submitPurchase(submission, nowMs: nowMs, admission: admission)
  }
  func submission(id: Int64) async throws -> SubmissionRecord? { try await base.submission(id: id) }
}

/// A stalled read that was never released.
struct StillStalled: Error {}

import Logging
import Synchronization
import Testing
import TollgateCore
import TollgateIndex
import TollgateSQLite
import TollgateStorage
import TollgateTesting

@Suite("Change-feed follower: one read per wake")
struct FollowerCatchUpTests {
  @Test("a poll reads the storage with one catchUp per batch: no separate mark, catalog, feed or records reads")
  func oneCallPerBatch() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let writer = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    let reader = CountingStorage(try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1))
    let index = EntitlementIndex()
    let config = ChangeFeedFollower.Config(pollInterval: .milliseconds(2), batchSize: 10, staleAfter: .seconds(5))
    let follower = ChangeFeedFollower(
      storage: reader, index: index, config: config, nowMs: { 1 }, logger: Logger(label: "test"))
    try await follower.loadSnapshot()
    reader.reset()

    #expect(try await follower.poll() == 0)
    #expect(reader.calls == ["catchUp": 1], "nothing new: one call")

    for n in 0..<25 {
      try await writer.replaceEntitlements(
        userId: "u\(n)", with: [.sample(userId: "u\(n)", expiresAtMs: 9)], reason: "t", nowMs: 1)
    }
    reader.reset()
    #expect(try await follower.poll() == 25)
    #expect(reader.calls == ["catchUp": 3], "25 entries in batches of 10: three calls")
    #expect(index.userCount == 25)
    #expect(follower.currentPosition.appliedSeq == 25 && follower.currentPosition.headSeq == 25)
  }
}

/// SQLite storage that counts the calls a follower makes (by name) and forwards them.
final class CountingStorage: EntitlementStorage {
  let base: SQLiteEntitlementStorage
  private let counts = Mutex<[String: Int]>([:])

  init(_ base: SQLiteEntitlementStorage) { self.base = base }

  var calls: [String: Int] { counts.withLock { $0 } }
  func reset() { counts.withLock { $0 = [:] } }
  private func count(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }

  func catchUp(after seq: Int64, limit: Int) async throws -> FeedCatchUp {
    count("catchUp")
    return try await base.catchUp(after: seq, limit: limit)
  }
  func changes(after seq: Int64, limit: Int) async throws -> [ChangeFeedEntry] {
    count("changes")
    return try await base.changes(after: seq, limit: limit)
  }
  func feedMark(at seq: Int64) async throws -> FeedMark {
    count("feedMark")
    return try await base.feedMark(at: seq)
  }
  func entitlements(forUsers userIds: [String]) async throws -> [String: [EntitlementRecord]] {
    count("entitlements")
    return try await base.entitlements(forUsers: userIds)
  }
  func savedAccessLevels() async throws -> AccessLevelPolicy? {
    count("savedAccessLevels")
    return try await base.savedAccessLevels()
  }
  func headSeq() async throws -> Int64 {
    count("headSeq")
    return try await base.headSeq()
  }
  func streamSnapshot(_ each: @escaping @Sendable (EntitlementRecord) -> Void) async throws -> Int64 {
    try await base.streamSnapshot(each)
  }
  func problem() -> String? { base.problem() }
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

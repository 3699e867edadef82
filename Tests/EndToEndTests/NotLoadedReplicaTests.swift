import Foundation
import Logging
import Synchronization
import Testing
import TollgateClient
import TollgateCore
import TollgateSQLite
import TollgateService
import TollgateStorage
import TollgateTesting

/// A replica started while its database cannot be read (issue 27): it listens, but never answers
/// from its empty index (which would say "not entitled" to every paying user): UNAVAILABLE for
/// reads and submissions, NOT_SERVING in Health with the reason, until the storage answers and
/// the index loads; then it serves as any replica.
@Suite("A replica that never loaded")
struct NotLoadedReplicaTests {
  @Test("answers UNAVAILABLE and NOT_SERVING until its storage answers, then serves from the loaded index")
  func unavailableUntilLoaded() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let base = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    let farFuture = SystemClock.nowMs() + 86_400_000
    try await base.replaceEntitlements(
      userId: "payer", with: [.sample(userId: "payer", expiresAtMs: farFuture)], reason: "seed", nowMs: 1)
    let storage = UnreachableStorage(base)

    let server = try await EntitlementServer.start(
      config: .init(host: "127.0.0.1", port: 0), storage: storage, waitForStorage: true,
      logger: Logger(label: "not-loaded"))
    let client = TollgateClient(host: "127.0.0.1", port: server.port)
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await server.run() }
      defer { group.cancelAll() }

      await #expect {
        try await client.isSubscriber(userId: "payer", entitlement: "premium")
      } throws: { ($0 as? TollgateClientError)?.code == .unavailable }
      await #expect {
        try await client.getSubscription(userId: "payer")
      } throws: { ($0 as? TollgateClientError)?.code == .unavailable }
      let health = try await client.health()
      #expect(health.status == .notServing)
      #expect(health.reason.contains("has not been loaded"), "\(health.reason)")
      #expect(health.reason.contains("the database server cannot be reached"), "\(health.reason)")

      storage.reachable()
      let loaded = await eventually(timeout: .seconds(20)) {
        (try? await client.isSubscriber(userId: "payer", entitlement: "premium"))?.active == true
      }
      #expect(loaded != nil, "the replica loads its index once the storage answers")
      #expect(try await client.health().status == .serving)

      await client.close()
      await server.shutdown()
    }
  }

  @Test("without waitForStorage, a storage that cannot be read stops the start")
  func startFailsWithoutWaiting() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = UnreachableStorage(try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1))
    await #expect(throws: UnreachableStorage.Unreachable.self) {
      _ = try await EntitlementServer.start(
        config: .init(host: "127.0.0.1", port: 0), storage: storage, logger: Logger(label: "not-loaded"))
    }
  }
}

/// SQLite storage that fails every read, as a database server that is down would, until
/// `reachable()`.
final class UnreachableStorage: EntitlementStorage {
  struct Unreachable: Error, CustomStringConvertible {
    var description: String { "the database server cannot be reached" }
  }

  let base: SQLiteEntitlementStorage
  private let down = Atomic<Bool>(true)

  init(_ base: SQLiteEntitlementStorage) { self.base = base }

  func reachable() { down.store(false, ordering: .releasing) }

  private func check() throws {
    if down.load(ordering: .acquiring) { throw Unreachable() }
  }

  func streamSnapshot(_ each: @escaping @Sendable (EntitlementRecord) -> Void) async throws -> Int64 {
    try check()
    return try await base.streamSnapshot(each)
  }
  func headSeq() async throws -> Int64 {
    try check()
    return try await base.headSeq()
  }
  func changes(after seq: Int64, limit: Int) async throws -> [ChangeFeedEntry] {
    try check()
    return try await base.changes(after: seq, limit: limit)
  }
  func feedMark(at seq: Int64) async throws -> FeedMark {
    try check()
    return try await base.feedMark(at: seq)
  }
  func problem() -> String? { base.problem() }
  func changeSignals(every interval: Duration, quiet: @escaping @Sendable () -> Void) -> ChangeSignals {
    base.changeSignals(every: interval, quiet: quiet)
  }
  func entitlements(forUsers userIds: [String]) async throws -> [String: [EntitlementRecord]] {
    try check()
    return try await base.entitlements(forUsers: userIds)
  }
  func replaceEntitlements(userId: String, with records: [EntitlementRecord], reason: String, nowMs: Int64) async throws
    -> Int64
  {
    try check()
    return try await base.replaceEntitlements(userId: userId, with: records, reason: reason, nowMs: nowMs)
  }
  func submitPurchase(_ submission: PurchaseSubmission, nowMs: Int64, admission: SubmissionAdmission) async throws
    -> Int64
  {
    try check()
    return try await base.submitPurchase(submission, nowMs: nowMs, admission: admission)
  }
  func submission(id: Int64) async throws -> SubmissionRecord? {
    try check()
    return try await base.submission(id: id)
  }
}

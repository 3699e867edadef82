import Synchronization
import TollgateCore
import TollgateSQLite
import TollgateStorage

/// SQLite storage for snapshot tests, forwarding every call: `readSnapshot` goes through SQLite's
/// own (both ends) unless `shuffled`, which hands `streamSnapshot`'s records over in a random
/// order through the protocol's default (one sink, users not adjacent, as a storage without an
/// order may); `pause` runs on the reading thread after the first `pauseAfter` rows of a
/// `readSnapshot`, before the rest are taken.
public final class SnapshotTestStorage: EntitlementStorage {
  public let base: SQLiteEntitlementStorage
  public let shuffled: Bool
  public let pauseAfter: Int
  public let pause: @Sendable () -> Void

  public init(
    _ base: SQLiteEntitlementStorage, shuffled: Bool = false, pauseAfter: Int = .max,
    pause: @escaping @Sendable () -> Void = {}
  ) {
    self.base = base
    self.shuffled = shuffled
    self.pauseAfter = pauseAfter
    self.pause = pause
  }

  public func readSnapshot(into builder: any EntitlementSnapshotBuilder, ends: Int) async throws -> Int64 {
    let pausing = PausingBuilder(builder: builder, after: pauseAfter, pause: pause)
    guard shuffled else { return try await base.readSnapshot(into: pausing, ends: ends) }
    let sink = Mutex(pausing.makeSink(descending: false))
    let snapshot = try await base.loadSnapshot()
    for record in snapshot.records.shuffled() {
      sink.withLock { sink in _ = EntitlementRowView.with(record) { sink.take($0) } }
    }
    sink.withLock { $0.finish() }
    return snapshot.headSeq
  }

  public func streamSnapshot(_ each: @escaping @Sendable (EntitlementRecord) -> Void) async throws -> Int64 {
    try await base.streamSnapshot(each)
  }
  public func catchUp(after seq: Int64, limit: Int) async throws -> FeedCatchUp {
    try await base.catchUp(after: seq, limit: limit)
  }
  public func changes(after seq: Int64, limit: Int) async throws -> [ChangeFeedEntry] {
    try await base.changes(after: seq, limit: limit)
  }
  public func feedMark(at seq: Int64) async throws -> FeedMark { try await base.feedMark(at: seq) }
  public func entitlements(forUsers userIds: [String]) async throws -> [String: [EntitlementRecord]] {
    try await base.entitlements(forUsers: userIds)
  }
  public func savedAccessLevels() async throws -> AccessLevelPolicy? { try await base.savedAccessLevels() }
  public func headSeq() async throws -> Int64 { try await base.headSeq() }
  public func problem() -> String? { base.problem() }
  public func changeSignals(every interval: Duration, quiet: @escaping @Sendable () -> Void) -> ChangeSignals {
    base.changeSignals(every: interval, quiet: quiet)
  }
  public func replaceEntitlements(userId: String, with records: [EntitlementRecord], reason: String, nowMs: Int64)
    async throws
    -> Int64
  {
    try await base.replaceEntitlements(userId: userId, with: records, reason: reason, nowMs: nowMs)
  }
  public func submitPurchase(_ submission: PurchaseSubmission, nowMs: Int64, admission: SubmissionAdmission)
    async throws
    -> Int64
  {
    try await base.submitPurchase(submission, nowMs: nowMs, admission: admission)
  }
  public func submission(id: Int64) async throws -> SubmissionRecord? { try await base.submission(id: id) }
}

/// A builder whose sinks call `pause` once, when `after` rows were taken by all of them.
private final class PausingBuilder: EntitlementSnapshotBuilder {
  let builder: any EntitlementSnapshotBuilder
  let after: Int
  let pause: @Sendable () -> Void
  let taken = Atomic<Int>(0)

  init(builder: any EntitlementSnapshotBuilder, after: Int, pause: @escaping @Sendable () -> Void) {
    self.builder = builder
    self.after = after
    self.pause = pause
  }

  func expect(rows: Int) { builder.expect(rows: rows) }

  func makeSink(descending: Bool) -> any EntitlementRowSink {
    PausingSink(sink: builder.makeSink(descending: descending), builder: self)
  }

  private final class PausingSink: EntitlementRowSink {
    let sink: any EntitlementRowSink
    let builder: PausingBuilder

    init(sink: any EntitlementRowSink, builder: PausingBuilder) {
      self.sink = sink
      self.builder = builder
    }

    func take(_ row: EntitlementRowView) -> Bool {
      if builder.taken.add(1, ordering: .relaxed).newValue == builder.after { builder.pause() }
      return sink.take(row)
    }

    func finish() { sink.finish() }
  }
}

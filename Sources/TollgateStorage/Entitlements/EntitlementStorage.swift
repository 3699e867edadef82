import Synchronization
import TollgateCore

/// Everything the entitlement service needs from storage. SQLite implements it today; a
/// PostgreSQL implementation goes behind the same interface.
public protocol EntitlementStorage: Sendable {
  /// Every entitlement record, streamed: `each` sees every record in turn (on the storage's own
  /// thread), so a large snapshot is never held in memory. Returns the snapshot's change-feed
  /// sequence: the records include every change up to it.
  func streamSnapshot(_ each: @escaping @Sendable (EntitlementRecord) -> Void) async throws -> Int64

  /// Every entitlement record into `builder`, for a load at scale: rows read in place
  /// (`EntitlementRowView`), from up to `ends` ends of the table at once (SQLite reads from both
  /// ends on two connections until they meet). Returns a change-feed sequence the records include
  /// every change up to; with two ends, each read in its own transaction, some records may be
  /// newer than it (following the feed from it reads those users again). The default
  /// (`SnapshotRows.swift`) is `streamSnapshot` into one sink.
  func readSnapshot(into builder: any EntitlementSnapshotBuilder, ends: Int) async throws -> Int64

  /// The newest change-feed sequence number.
  func headSeq() async throws -> Int64

  /// Change-feed entries after `seq`, oldest first, at most `limit`.
  ///
  /// **Sequence numbers are handed out in commit order.** An entry's `seq` is assigned inside
  /// the transaction that writes it, and the appends of every writer (any handle, any process)
  /// are serialised, so numbers grow in the order entries become visible: a follower that has
  /// read up to `seq` never later sees a new entry at or below it, and following
  /// `changes(after:)` from its last position sees every entry once, in order. A number is never
  /// handed out again. SQLite keeps this with its single writer (`BEGIN IMMEDIATE`); a server
  /// database takes a transaction-scoped lock before its first append, or its readers stop below
  /// the oldest number of a transaction still open (docs/storage.md, "Feed and event order").
  func changes(after seq: Int64, limit: Int) async throws -> [ChangeFeedEntry]

  /// Where the feed stands now, so that a follower can tell a feed that moved on from one that
  /// was replaced under it (an older backup restored, another database): the database's id, the
  /// newest sequence, and the entry at `seq` as stored now (nil if there is none).
  func feedMark(at seq: Int64) async throws -> FeedMark

  /// Everything a follower reads when woken, in one call (`FeedCatchUp`): `feedMark(at: seq)`,
  /// `savedAccessLevels()` (a failure to read them is part of the answer, not an error),
  /// `changes(after: seq, limit:)` and `entitlements(forUsers:)` of the users those entries name.
  /// Each part is read no earlier than the one before it in that list, so the records are at least
  /// as new as the entries and the entries continue the feed the mark describes; a storage behind
  /// a network reads them in one round trip and one snapshot (PostgreSQL: one statement, which
  /// also notes the database's id for `problem()` as `feedMark` does), and then the mark's head
  /// is at or past the last entry. The default (`FeedCatchUp.swift`) makes the four calls in
  /// that order.
  func catchUp(after seq: Int64, limit: Int) async throws -> FeedCatchUp

  /// Why the storage can no longer be trusted (an SQLite file deleted or replaced since it was
  /// opened: what is written there is lost), in a sentence for Health and the logs; nil when all
  /// is well. Cheap, but it may touch the file system: not on an event loop or the cooperative
  /// pool (the follower asks about once a second on a thread of its own).
  func problem() -> String?

  /// Signals that the change feed may have moved (`ChangeSignals`), for one follower: the first
  /// at once, then one soon after each commit by anyone (coalesced), so that the follower reads
  /// the feed only when there may be something to read. `interval` is how often a storage that
  /// has to look does look: SQLite runs `PRAGMA data_version` every `interval` on a thread of its
  /// own (never on the cooperative pool or an event loop: a look costs a few microseconds and no
  /// task wake-up); a server database needs no interval, as it yields on each `NOTIFY` its
  /// writers send in the writing transaction (`LISTEN` on a connection of its own) and once when
  /// that connection is (re)established, since notifications sent while it was down are lost.
  /// `quiet` runs when a look found nothing committed while the follower waited
  /// (`ChangeSignals.Continuation.quiet()`): quick, non-blocking. The default signals every
  /// `interval` and is never quiet: the follower then reads the feed each time.
  func changeSignals(every interval: Duration, quiet: @escaping @Sendable () -> Void) -> ChangeSignals

  /// The current records of the given users (users with none are absent from the result).
  func entitlements(forUsers userIds: [String]) async throws -> [String: [EntitlementRecord]]

  /// Replaces all entitlement records of `userId` and appends to the change feed, atomically.
  /// Returns the change-feed sequence number of the write.
  @discardableResult
  func replaceEntitlements(
    userId: String, with records: [EntitlementRecord], reason: String, nowMs: Int64
  ) async throws -> Int64

  /// Replaces the records of many users (seeding, bulk imports, `bench visibility`), appending one
  /// change-feed entry per user, in one transaction where the storage can (the default writes
  /// user by user). Returns the last sequence number, 0 for an empty batch.
  @discardableResult
  func replaceEntitlements(
    batch: [(userId: String, records: [EntitlementRecord])], reason: String, nowMs: Int64
  ) async throws -> Int64

  /// Stores a submitted purchase durably in the inbox; returns its id. Throws
  /// `TooManyPendingSubmissions` instead when the submission's caller (`submission.caller`, one
  /// caller for all on a server without callers) already has `admission.maximumPending`
  /// submissions of the same kind (signed or not, `admission.signed`) for the same user not
  /// verified yet (counted and stored in one transaction). Another caller's submissions for that
  /// user never count (issue 25).
  func submitPurchase(_ submission: PurchaseSubmission, nowMs: Int64, admission: SubmissionAdmission) async throws
    -> Int64

  /// A submission as it stands now, or nil if there is none with that id.
  func submission(id: Int64) async throws -> SubmissionRecord?

  /// The access levels (`ProductCatalog.accessLevels`) of the catalog the worker runs with, as it
  /// saved them at its start; nil when no worker has saved a catalog. The service answers
  /// `access_level` with them.
  func savedAccessLevels() async throws -> AccessLevelPolicy?

  /// Records that the reader `readerId` (one `serve` replica's process run) has applied the
  /// change feed up to `seq`, at `nowMs` (the replica's clock): inserts or replaces its row in
  /// `feed_readers`. Housekeeping's prune keeps every entry from the lowest position of the
  /// readers seen lately (`PrunePlan.changeFeedReadersSeenSinceMs`), so a replica that is behind
  /// never finds the entries it has yet to read deleted. A replica records every few seconds
  /// (`FeedPositionRecorder`), also when it did not move: `nowMs` says it is alive. The default
  /// records nothing (a storage with no feed to prune: test fakes).
  func recordFeedPosition(readerId: String, seq: Int64, nowMs: Int64) async throws

  /// Removes the row of the reader `readerId` (a replica shutting down): it holds no entry back
  /// any more. Removing a reader that has no row does nothing. The default does nothing.
  func removeFeedReader(readerId: String) async throws

  /// Ends this storage: whoever opened it (`StorageLocation.entitlementStorage`) calls it once,
  /// when nothing will use it again. A server database closes its connection pool (and its
  /// `LISTEN` connection) and returns once they are closed; calls after it fail. The default does
  /// nothing: SQLite closes its file when the storage is released.
  func close() async
}

/// How a submission counts against its caller's allowance of pending submissions for its user.
/// Submissions that carry a signed store payload (`signed`) are counted apart from the others, so
/// unsigned ones (bare ids and tokens, which anyone can type) never hold a signed one back.
public struct SubmissionAdmission: Sendable, Hashable {
  /// The submission carries a signed store payload (an Apple signed transaction, a Google Play
  /// purchase with its signature): it is counted in the signed allowance.
  public var signed: Bool
  /// Submissions of this kind one caller may have waiting for one user; this one is refused
  /// when as many are.
  public var maximumPending: Int

  public init(signed: Bool, maximumPending: Int) {
    self.signed = signed
    self.maximumPending = maximumPending
  }

  /// No bound (tests, tools).
  public static let unlimited = SubmissionAdmission(signed: false, maximumPending: .max)
}

/// A caller has as many submissions for a user waiting for verification as the service allows
/// (of the kind, signed or not, the refused one is).
public struct TooManyPendingSubmissions: Error, Sendable, Hashable {
  public var limit: Int
  public var signed: Bool
  public init(limit: Int, signed: Bool = false) {
    self.limit = limit
    self.signed = signed
  }
}

extension EntitlementStorage {
  public func close() async {}

  public func recordFeedPosition(readerId: String, seq: Int64, nowMs: Int64) async throws {}

  public func removeFeedReader(readerId: String) async throws {}

  public func changeSignals(every interval: Duration, quiet: @escaping @Sendable () -> Void) -> ChangeSignals {
    .every(interval)
  }

  public func savedAccessLevels() async throws -> AccessLevelPolicy? { nil }

  @discardableResult
  public func replaceEntitlements(
    batch: [(userId: String, records: [EntitlementRecord])], reason: String, nowMs: Int64
  ) async throws -> Int64 {
    var seq: Int64 = 0
    for (userId, records) in batch {
      seq = try await replaceEntitlements(userId: userId, with: records, reason: reason, nowMs: nowMs)
    }
    return seq
  }

  /// Stores a submitted purchase with no bound on the pending submissions.
  public func submitPurchase(_ submission: PurchaseSubmission, nowMs: Int64) async throws -> Int64 {
    try await submitPurchase(submission, nowMs: nowMs, admission: .unlimited)
  }

  /// Every entitlement record in one array, with the change-feed position they are consistent
  /// with (small stores and tests; the service streams).
  public func loadSnapshot() async throws -> EntitlementSnapshot {
    let collected = Mutex<[EntitlementRecord]>([])
    let headSeq = try await streamSnapshot { record in collected.withLock { $0.append(record) } }
    return EntitlementSnapshot(records: collected.withLock { $0 }, headSeq: headSeq)
  }
}

public struct EntitlementSnapshot: Sendable {
  public var records: [EntitlementRecord]
  /// The newest change-feed sequence number this snapshot includes.
  public var headSeq: Int64

  public init(records: [EntitlementRecord], headSeq: Int64) {
    self.records = records
    self.headSeq = headSeq
  }
}

public struct ChangeFeedEntry: Sendable, Hashable {
  public var seq: Int64
  public var userId: String
  public var reason: String
  public var atMs: Int64

  public init(seq: Int64, userId: String, reason: String, atMs: Int64) {
    self.seq = seq
    self.userId = userId
    self.reason = reason
    self.atMs = atMs
  }
}

/// Where a change feed stands: see `EntitlementStorage.feedMark(at:)`.
public struct FeedMark: Sendable, Hashable {
  public var databaseId: String
  public var headSeq: Int64
  public var entry: ChangeFeedEntry?

  public init(databaseId: String, headSeq: Int64, entry: ChangeFeedEntry?) {
    self.databaseId = databaseId
    self.headSeq = headSeq
    self.entry = entry
  }
}

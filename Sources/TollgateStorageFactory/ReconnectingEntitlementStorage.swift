import Synchronization
import TollgateCore
import TollgateStorage

/// The service's storage on a database server that could not be reached when `serve` started
/// (`StorageLocation.entitlementStorage(…, waitForServer: true)`): each call first opens the real
/// storage if it is not open yet, so the replica listens at once, answers UNAVAILABLE while the
/// server is down (`EntitlementServer.start(…, waitForStorage: true)`), and loads its index on the
/// first call that finds the server up. Until then every call fails with why the last attempt
/// failed, and `problem()` says so.
///
/// One attempt at a time: callers that arrive during an attempt wait for it (`Opener`), and a
/// failed attempt is made again by the next call (the follower retries with back-off).
final class ReconnectingEntitlementStorage: EntitlementStorage {
  private let opener: Opener
  /// The storage once open: what `problem()` and `changeSignals` (synchronous) use.
  private let opened = Mutex<(any EntitlementStorage)?>(nil)
  /// Why the last attempt failed, for `problem()`.
  private let lastFailure: Mutex<String?>

  /// - Parameters:
  ///   - failure: why the first attempt (the caller's) failed.
  ///   - open: opens the real storage; called again after each failure.
  init(failure: any Error, open: @escaping @Sendable () async throws -> any EntitlementStorage) {
    lastFailure = Mutex("\(failure)")
    opener = Opener(open: open)
  }

  /// The open storage, opening it first if needed.
  private func storage() async throws -> any EntitlementStorage {
    if let storage = opened.withLock({ $0 }) { return storage }
    do {
      let storage = try await opener.storage()
      opened.withLock { $0 = storage }
      lastFailure.withLock { $0 = nil }
      return storage
    } catch {
      lastFailure.withLock { $0 = "\(error)" }
      throw error
    }
  }

  func close() async { await opener.close() }

  func streamSnapshot(_ each: @escaping @Sendable (EntitlementRecord) -> Void) async throws -> Int64 {
    try await storage().streamSnapshot(each)
  }

  func readSnapshot(into builder: any EntitlementSnapshotBuilder, ends: Int) async throws -> Int64 {
    try await storage().readSnapshot(into: builder, ends: ends)
  }

  func headSeq() async throws -> Int64 { try await storage().headSeq() }

  func changes(after seq: Int64, limit: Int) async throws -> [ChangeFeedEntry] {
    try await storage().changes(after: seq, limit: limit)
  }

  func feedMark(at seq: Int64) async throws -> FeedMark { try await storage().feedMark(at: seq) }

  func catchUp(after seq: Int64, limit: Int) async throws -> FeedCatchUp {
    try await storage().catchUp(after: seq, limit: limit)
  }

  func problem() -> String? {
    if let storage = opened.withLock({ $0 }) { return storage.problem() }
    return lastFailure.withLock { $0 }
  }

  /// The open storage's signals (a follower asks once its index is loaded, so the storage is open
  /// by then); signals every `interval` otherwise.
  func changeSignals(every interval: Duration, quiet: @escaping @Sendable () -> Void) -> ChangeSignals {
    guard let storage = opened.withLock({ $0 }) else { return .every(interval) }
    return storage.changeSignals(every: interval, quiet: quiet)
  }

  func entitlements(forUsers userIds: [String]) async throws -> [String: [EntitlementRecord]] {
    try await storage().entitlements(forUsers: userIds)
  }

  @discardableResult
  func replaceEntitlements(userId: String, with records: [EntitlementRecord], reason: String, nowMs: Int64)
    async throws -> Int64
  {
    try await storage().replaceEntitlements(userId: userId, with: records, reason: reason, nowMs: nowMs)
  }

  @discardableResult
  func replaceEntitlements(batch: [(userId: String, records: [EntitlementRecord])], reason: String, nowMs: Int64)
    async throws -> Int64
  {
    try await storage().replaceEntitlements(batch: batch, reason: reason, nowMs: nowMs)
  }

  func submitPurchase(_ submission: PurchaseSubmission, nowMs: Int64, admission: SubmissionAdmission) async throws
    -> Int64
  {
    try await storage().submitPurchase(submission, nowMs: nowMs, admission: admission)
  }

  func submission(id: Int64) async throws -> SubmissionRecord? { try await storage().submission(id: id) }

  func savedAccessLevels() async throws -> AccessLevelPolicy? { try await storage().savedAccessLevels() }

  func recordFeedPosition(readerId: String, seq: Int64, nowMs: Int64) async throws {
    try await storage().recordFeedPosition(readerId: readerId, seq: seq, nowMs: nowMs)
  }

  func removeFeedReader(readerId: String) async throws {
    try await storage().removeFeedReader(readerId: readerId)
  }
}

/// Opens the storage once for every caller: the attempt under way is a task the callers await
/// (each attempt is awaited by at least the caller that started it, and by `close()`; never left
/// running unobserved), and a failed one is forgotten so that the next caller tries again.
private actor Opener {
  private let open: @Sendable () async throws -> any EntitlementStorage
  private var attempt: Task<any EntitlementStorage, any Error>?
  private var storage: (any EntitlementStorage)?
  private var closed = false

  init(open: @escaping @Sendable () async throws -> any EntitlementStorage) {
    self.open = open
  }

  func storage() async throws -> any EntitlementStorage {
    if let storage { return storage }
    if closed { throw StorageClosed() }
    let attempt = self.attempt ?? Task { [open] in try await open() }
    self.attempt = attempt
    do {
      let opened = try await attempt.value
      self.attempt = nil
      if closed {
        // Closed while this attempt ran: the pool it opened is nobody's.
        await opened.close()
        throw StorageClosed()
      }
      storage = opened
      return opened
    } catch {
      if self.attempt == attempt { self.attempt = nil }
      throw error
    }
  }

  func close() async {
    closed = true
    if let attempt {
      self.attempt = nil
      if let opened = try? await attempt.value { await opened.close() }
    }
    if let storage {
      self.storage = nil
      await storage.close()
    }
  }
}

/// A call on a storage after it was closed.
struct StorageClosed: Error, CustomStringConvertible {
  var description: String { "the storage was closed" }
}

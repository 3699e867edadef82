import Logging
import ServiceLifecycle
import Synchronization
import TollgateCore
import TollgateStorage

/// Keeps an `EntitlementIndex` in step with storage: loads a snapshot, then follows the change feed
/// and reloads each changed user, so a write by another process is served within milliseconds.
public final class ChangeFeedFollower: Service, Sendable {
  public struct Config: Sendable {
    /// How often a storage that must look for commits looks (`EntitlementStorage.changeSignals`:
    /// SQLite's probe); the feed is read when it signals.
    public var pollInterval: Duration
    /// Most change-feed entries applied per read.
    public var batchSize: Int
    /// After this long without a successful read, Health reports DEGRADED.
    public var staleAfter: Duration

    public static var defaults: Config {
      Config(pollInterval: .milliseconds(2), batchSize: 1_000, staleAfter: .seconds(5))
    }

    public init(pollInterval: Duration, batchSize: Int, staleAfter: Duration) {
      self.pollInterval = pollInterval
      self.batchSize = batchSize
      self.staleAfter = staleAfter
    }
  }

  public struct Position: Sendable, Hashable {
    /// The last change-feed sequence applied to the index.
    public var appliedSeq: Int64
    /// The newest sequence seen in storage.
    public var headSeq: Int64
    /// When the index was last known to be up to date (ms since epoch): a successful read of the
    /// feed, or a look that found nothing committed since with no read owing; 0 before the first.
    public var lastReadAtMs: Int64

    /// How long ago the index was last known to be up to date, at `nowMs`: 0 before the first
    /// read (nothing to be behind yet) and never negative (a clock stepped back).
    public func lagMs(at nowMs: Int64) -> Int64 {
      lastReadAtMs == 0 ? 0 : max(0, nowMs - lastReadAtMs)
    }
  }

  /// What is wrong with the data behind the index, for Health: see `trouble`.
  public enum Trouble: Sendable, Hashable {
    /// The storage's file is no longer the file at its path (deleted, renamed over): the index
    /// shows a database nobody writes to any more. The reason says what to do.
    case fileProblem(String)
    /// The feed went backwards or belongs to another database (a restore): the whole index is
    /// being reloaded from a snapshot.
    case reloading(String)
  }

  /// The feed entry the index is known to include, and the id of the database it came from.
  struct Anchor: Sendable {
    var databaseId: String
    var entry: ChangeFeedEntry?
  }

  public let index: EntitlementIndex
  public let config: Config
  private let storage: any EntitlementStorage
  private let nowMs: @Sendable () -> Int64
  private let logger: Logger
  private let position = Mutex(Position(appliedSeq: 0, headSeq: 0, lastReadAtMs: 0))
  private let anchor = Mutex(Anchor(databaseId: "", entry: nil))
  private let reloadingReason = Mutex<String?>(nil)
  private let fileProblem = Mutex<String?>(nil)
  /// Why the saved access levels could not be read last time (logged once per new reason).
  private let accessLevelsProblem = Mutex<String?>(nil)
  /// Whether a snapshot was ever loaded: until then the index is empty, and an empty index would
  /// answer "not entitled" to every paying user.
  private let loaded = Atomic<Bool>(false)
  /// Why the first load has not succeeded yet, and since when (ms): for Health.
  private let loadFailure = Mutex<(reason: String, sinceMs: Int64)?>(nil)

  public init(
    storage: any EntitlementStorage, index: EntitlementIndex, config: Config = .defaults,
    nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) {
    self.storage = storage
    self.index = index
    self.config = config
    self.nowMs = nowMs
    self.logger = logger
  }

  public var currentPosition: Position { position.withLock { $0 } }

  /// Whether the index holds a snapshot yet. A service started while its database could not be
  /// reached (`EntitlementServer.start(…, waitForStorage: true)`) has none until the follower
  /// loads one: it must answer UNAVAILABLE, never from the empty index. One atomic load: cheap
  /// enough for the hot path.
  public var isLoaded: Bool { loaded.load(ordering: .acquiring) }

  /// Why the index has never been loaded, and since when (ms); nil once it has been.
  public var notLoadedReason: (reason: String, sinceMs: Int64)? {
    isLoaded ? nil : loadFailure.withLock { $0 }
  }

  /// What is wrong with the data behind the index (a replaced file first, then a reload), or nil.
  public var trouble: Trouble? {
    if let problem = fileProblem.withLock({ $0 }) { return .fileProblem(problem) }
    return reloadingReason.withLock { $0 }.map { .reloading($0) }
  }

  /// Waits until the index includes change `seq` (read-your-writes for a caller that just saw a
  /// write land); false if that takes longer than `timeout`.
  public func waitUntilApplied(_ seq: Int64, timeout: Duration) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while currentPosition.appliedSeq < seq {
      guard clock.now < deadline else { return false }
      do { try await Task.sleep(for: .milliseconds(1)) } catch { return false }
    }
    return true
  }

  /// Loads the whole snapshot into the index. Call once before serving; the follower calls it
  /// again when the feed was replaced under it. The snapshot is built aside (read from both ends
  /// of the table at once, `SnapshotLoader`) and swapped in at once, so a reload never answers
  /// from an empty or half-loaded index: until the swap, answers come from the old one. `ends`:
  /// how many threads read (2 before serving; a reload reads on one, leaving the other core to
  /// the answers the old index gives meanwhile: 10M users under load reloaded in 13.9 s with answers
  /// at most 40 ms late, in 13.5 s with two and answers up to 130 ms late).
  public func loadSnapshot(ends: Int = 2) async throws {
    let started = ContinuousClock.now
    let loader = SnapshotLoader()
    let headSeq = try await storage.readSnapshot(into: loader, ends: ends)
    let fresh = EntitlementIndex(loaded: loader.finish())
    let mark = try await storage.feedMark(at: headSeq)
    await refreshAccessLevels()
    index.replaceAll(with: fresh)
    let elapsed = ContinuousClock.now - started
    let now = nowMs()
    anchor.withLock { $0 = Anchor(databaseId: mark.databaseId, entry: mark.entry) }
    position.withLock { $0 = Position(appliedSeq: headSeq, headSeq: headSeq, lastReadAtMs: now) }
    loaded.store(true, ordering: .releasing)
    logger.info(
      "index loaded",
      metadata: [
        "index.users": "\(index.userCount)", "index.records": "\(index.recordCount)", "feed.seq": "\(headSeq)",
        "index.load_ms": "\(elapsed.milliseconds)",
      ])
  }

  /// Applies every change after the applied position; returns how many entries it applied. Each
  /// read is one `catchUp` (one round trip on a server database): the mark, checked first (a feed
  /// replaced under the index reloads it), the saved access levels, the entries and their users'
  /// records.
  @discardableResult
  public func poll() async throws -> Int {
    var applied = 0
    while true {
      let after = position.withLock { $0.appliedSeq }
      let catchUp = try await storage.catchUp(after: after, limit: config.batchSize)
      if let reason = feedReplaced(catchUp.mark, applied: after) {
        try await reload(because: reason)
        return applied
      }
      useAccessLevels(catchUp.accessLevels)
      let entries = catchUp.entries
      let now = nowMs()
      guard let last = entries.last else {
        position.withLock {
          $0.lastReadAtMs = now
          $0.headSeq = max($0.headSeq, $0.appliedSeq, catchUp.mark.headSeq)
        }
        return applied
      }
      for userId in Set(entries.map(\.userId)) {
        index.replace(userId: userId, with: catchUp.records[userId] ?? [])
      }
      position.withLock {
        $0.appliedSeq = last.seq
        $0.headSeq = max($0.headSeq, last.seq, catchUp.mark.headSeq)
        $0.lastReadAtMs = now
      }
      anchor.withLock { $0.entry = last }
      applied += entries.count
      if entries.count < config.batchSize { return applied }
    }
  }

  /// Follows the feed until graceful shutdown. Storage errors are logged and retried; the index
  /// keeps serving what it has. A follower whose first load failed (`recordLoadFailure`) loads
  /// first, retrying with back-off until the storage answers.
  public func run() async throws {
    await cancelWhenGracefulShutdown {
      guard await self.loadUntilLoaded() else { return }
      await self.follow()
    }
  }

  /// Notes that the first load failed (the database cannot be reached): Health says why, and
  /// `run()` keeps trying.
  public func recordLoadFailure(_ error: any Error) {
    let now = nowMs()
    loadFailure.withLock { failure in
      failure = (reason: "\(error)", sinceMs: failure?.sinceMs ?? now)
    }
  }

  /// Loads the snapshot if none was loaded yet, retrying every 100 ms, doubling to 5 s; false when
  /// cancelled first.
  private func loadUntilLoaded() async -> Bool {
    var delay = Duration.milliseconds(100)
    var failures = 0
    while !isLoaded {
      do {
        try await loadSnapshot()
        logger.notice(
          "index loaded after the storage could not be read at start", metadata: ["failures": "\(failures)"])
        return true
      } catch {
        failures += 1
        recordLoadFailure(error)
        if failures == 1 || failures.isMultiple(of: 20) {
          logger.error(
            "loading the index failed; answering UNAVAILABLE until it loads",
            metadata: ["error": "\(error)", "failures": "\(failures)"])
        }
      }
      do { try await Task.sleep(for: delay) } catch { return false }
      delay = min(delay * 2, .seconds(5))
    }
    return true
  }

  /// Gives the index the access levels of the catalog the worker saved (a snapshot load reads
  /// them on their own; a poll's `catchUp` brings them).
  private func refreshAccessLevels() async {
    do {
      useAccessLevels(.success(try await storage.savedAccessLevels()))
    } catch {
      useAccessLevels(.failure(UnreadableAccessLevels("\(error)")))
    }
  }

  /// Gives the index the saved access levels when they changed (a worker started with another
  /// catalog): saving the catalog is a commit, and every read brings them. Levels that cannot be
  /// read (a newer worker's catalog naming a state this service does not know) keep the levels
  /// the index has, with one error logged, and never stop the feed.
  private func useAccessLevels(_ read: Result<AccessLevelPolicy?, UnreadableAccessLevels>) {
    let saved: AccessLevelPolicy?
    switch read {
    case .success(let levels):
      saved = levels
      accessLevelsProblem.withLock { $0 = nil }
    case .failure(let unreadable):
      let problem = unreadable.description
      let isNew = accessLevelsProblem.withLock { stored in
        defer { stored = problem }
        return stored != problem
      }
      if isNew {
        logger.error(
          "the access levels of the worker's catalog cannot be read; answers keep the previous ones",
          metadata: ["error": "\(problem)"])
      }
      return
    }
    guard let levels = saved, levels != index.accessLevels else { return }
    index.setAccessLevels(levels)
    logger.info(
      "access levels from the worker's catalog",
      metadata: [
        "catalog.access_levels": "\(levels.levels.map { "\($0.key.rawValue)=\($0.value)" }.sorted())"
      ])
  }

  /// Why the stored feed no longer continues the one the index follows, or nil: another
  /// database's id, a head behind what was applied, or another entry at the applied sequence (an
  /// older copy restored, and written to since).
  private func feedReplaced(_ mark: FeedMark, applied: Int64) -> String? {
    let anchor = anchor.withLock { $0 }
    if mark.databaseId != anchor.databaseId {
      return "the database behind the change feed changed (id \(anchor.databaseId) became \(mark.databaseId))"
    }
    if mark.headSeq < applied {
      return "the change feed went backwards (head \(mark.headSeq), applied \(applied)): an older copy was restored"
    }
    if mark.entry != anchor.entry {
      return "change \(applied) is not the one applied: the change feed was rewritten (an older copy was restored)"
    }
    return nil
  }

  /// Reloads the whole index; Health says DEGRADED with `reason` meanwhile.
  private func reload(because reason: String) async throws {
    logger.warning("reloading the whole index from a snapshot", metadata: ["reason": "\(reason)"])
    reloadingReason.withLock { $0 = reason }
    defer { reloadingReason.withLock { $0 = nil } }
    try await loadSnapshot(ends: 1)
  }

  /// Looks whether the storage's file is still the one at its path, logging each change.
  private func checkFile() {
    let problem = storage.problem()
    let previous = fileProblem.withLock { stored in
      defer { stored = problem }
      return stored
    }
    guard problem != previous else { return }
    if let problem {
      logger.error("the database file cannot be trusted; Health says NOT_SERVING", metadata: ["reason": "\(problem)"])
    } else {
      logger.notice("the database file is the one opened again")
    }
  }

  private func follow() async {
    let problems = ProblemWatcher(interval: .seconds(1)) { [self] in checkFile() }
    defer { problems.stop() }
    let signals = storage.changeSignals(every: config.pollInterval) { [self] in
      // Nothing was committed since the last look, and the follower waits for a signal (every
      // change signalled before has been read): the index is as fresh as a read would make it.
      let now = nowMs()
      position.withLock { $0.lastReadAtMs = now }
    }
    for await _ in signals {
      await pollUntilRead()
    }
  }

  /// Reads the feed, retrying every 100 ms until a read succeeds or the task is cancelled.
  private func pollUntilRead() async {
    var failures = 0
    while !Task.isCancelled {
      do {
        try await poll()
        if failures > 0 { logger.info("change feed readable again", metadata: ["feed.failures": "\(failures)"]) }
        return
      } catch {
        failures += 1
        if failures == 1 || failures.isMultiple(of: 1_000) {
          logger.error(
            "reading the change feed failed", metadata: ["error": "\(error)", "feed.failures": "\(failures)"])
        }
      }
      do {
        try await Task.sleep(for: .milliseconds(100))
      } catch {
        return  // cancelled
      }
    }
  }
}

import Logging
import PostgresNIO
import Synchronization
import TollgateStorage

/// The producer behind `PostgresEntitlementStorage.changeSignals`: `LISTEN tollgate_changes` on a
/// connection it holds for as long as it listens, and a signal
/// - at once, when it starts (`EntitlementStorage.changeSignals`: the first at once);
/// - for each notification (every writer notifies in the writing transaction, delivered at commit;
///   the signals coalesce them);
/// - each time `LISTEN` is (re)established: notifications sent while the connection was down are
///   lost, so the follower reads the feed from its position and catches up;
/// - from a slow look (`fallbackInterval`, about 1 s) at the database's id, the feed's head and the
///   saved catalog, through the pool: a change that came with no notification (a writer that sent
///   none, a catalog saved) is signalled, and a look that found nothing new says `quiet` (the
///   follower knows its index is fresh without reading);
/// - every `fallbackInterval` while no connection listens, so that a follower whose pool still
///   works keeps reading.
///
/// A dropped connection is replaced with back-off (50 ms doubling to 2 s, reset once `LISTEN`
/// succeeds). So is one that stays silent while the feed moves (`silentLooksBeforeReconnect` looks
/// that found it moved with no notification in between: a connection cut without a word). The listening
/// connection is one of the pool's, leased for as long as it listens and named `tollgate-listen`
/// (`application_name`) for `pg_stat_activity`. It is closed, never handed back, when listening
/// ends: postgres-nio never answers a statement written to a connection that has just closed (the
/// write is dropped), so nothing is sent on it after it failed, and the pool opens a fresh one.
final class PostgresChangeListener: Sendable {
  static let firstRetry: Duration = .milliseconds(50)
  static let longestRetry: Duration = .seconds(2)

  /// What a look sees; a look that sees what the previous one saw found nothing committed.
  struct Mark: Sendable, Hashable {
    var databaseId: String
    var headSeq: Int64
    var catalogSavedAtMs: Int64?
  }

  private let storage: PostgresEntitlementStorage
  private let continuation: ChangeSignals.Continuation
  private let logger: Logger
  private let listening = Atomic<Bool>(false)
  /// A notification arrived since the last look: that look need not signal again.
  private let heard = Atomic<Bool>(false)

  init(storage: PostgresEntitlementStorage, continuation: ChangeSignals.Continuation, logger: Logger) {
    self.storage = storage
    self.continuation = continuation
    self.logger = logger
  }

  /// Runs until its task is cancelled (the signals' end cancels it): every wait in it ends on
  /// cancellation, and the listening connection is closed on the way out.
  func run() async {
    continuation.changed()
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.listenUntilCancelled() }
      group.addTask { await self.signalWhileNotListening() }
      _ = await group.next()
      group.cancelAll()
    }
  }

  private func listenUntilCancelled() async {
    var delay = Self.firstRetry
    var failures = 0
    while !Task.isCancelled && !continuation.isFinished {
      do {
        try await listenOnce {
          if failures > 0 {
            logger.notice("listening for change notifications again", metadata: ["feed.failures": "\(failures)"])
          }
          failures = 0
          delay = Self.firstRetry
        }
      } catch {
        if Task.isCancelled { return }
        failures += 1
        if failures == 1 || failures.isMultiple(of: 30) {
          logger.warning(
            "the connection listening for change notifications ended; reconnecting, and polling every second meanwhile",
            metadata: ["error": "\(PostgresStorageError.describe(error))", "feed.failures": "\(failures)"])
        }
      }
      do {
        try await Task.sleep(for: delay)
      } catch {
        return  // cancelled
      }
      delay = min(delay * 2, Self.longestRetry)
    }
  }

  /// Leases a connection, listens on it until that fails (or the task is cancelled), and closes
  /// it. `established` runs once `LISTEN` has succeeded.
  private func listenOnce(established: () -> Void) async throws {
    try await storage.database.withConnection { connection in
      defer { listening.store(false, ordering: .relaxed) }
      do {
        try await connection.query(
          "SET application_name = '\(unescaped: PostgresEntitlementStorage.listenerApplicationName)'",
          logger: logger)
        try await connection.listen(on: PostgresEntitlementWriter.notificationChannel) { notifications in
          listening.store(true, ordering: .relaxed)
          established()
          // Whatever was committed before LISTEN took effect was not notified: read it.
          continuation.changed()
          try await follow(notifications)
        }
      } catch {
        try? await connection.close()
        throw error
      }
      try? await connection.close()
    }
  }

  /// Signals each notification and looks every `fallbackInterval`, until either fails.
  private func follow(_ notifications: PostgresNotificationSequence) async throws {
    let first = try await look()
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        for try await _ in notifications {
          self.heard.store(true, ordering: .relaxed)
          self.continuation.changed()
        }
        try Task.checkCancellation()
        throw ListeningEnded(description: "the notifications ended")
      }
      group.addTask {
        var mark = first
        var silent = 0
        while true {
          try await Task.sleep(for: self.storage.fallbackInterval)
          let now = try await self.look()
          let heard = self.heard.exchange(false, ordering: .relaxed)
          // A notification is proof that the connection still listens; a move without one counts.
          if heard { silent = 0 }
          if now == mark {
            self.continuation.quiet()
            continue
          }
          if !heard, now.headSeq != mark.headSeq { silent += 1 }
          mark = now
          if !heard { self.continuation.changed() }
          if silent >= PostgresEntitlementStorage.silentLooksBeforeReconnect {
            throw ListeningEnded(description: "the feed moved at \(silent) looks with no notification since")
          }
        }
      }
      defer { group.cancelAll() }
      _ = try await group.next()
    }
  }

  /// The database's id, the feed's head and when the catalog was saved, in one statement.
  private func look() async throws -> Mark {
    let rows = try await storage.database.query(
      """
      SELECT (SELECT database_id FROM database_meta WHERE id = 1),
        (SELECT COALESCE(MAX(seq), 0) FROM change_feed),
        (SELECT saved_at_ms FROM catalog WHERE id = 1)
      """)
    guard let row = rows.first else { throw PostgresStorageError.undecodable("look returned no row") }
    let (databaseId, head, savedAt) = try row.decode((String?, Int64, Int64?).self)
    storage.noteDatabaseId(databaseId ?? "")
    return Mark(databaseId: databaseId ?? "", headSeq: head, catalogSavedAtMs: savedAt)
  }

  /// Signals every `fallbackInterval` while no connection listens.
  private func signalWhileNotListening() async {
    while !Task.isCancelled {
      do {
        try await Task.sleep(for: storage.fallbackInterval)
      } catch {
        return  // cancelled
      }
      if !listening.load(ordering: .relaxed) { continuation.changed() }
    }
  }
}

/// Why the listening connection was given up: its notifications ended, or it went silent.
struct ListeningEnded: Error, CustomStringConvertible {
  var description: String
}

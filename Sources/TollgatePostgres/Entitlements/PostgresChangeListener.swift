import Logging
import PostgresNIO
import Synchronization
import TollgateStorage

/// The producer behind `PostgresEntitlementStorage.changeSignals`: `LISTEN tollgate_changes` on a
/// connection it holds for as long as it runs, and a signal
/// - at once, when it starts (`EntitlementStorage.changeSignals`: the first at once);
/// - for each notification (every writer notifies in the writing transaction, delivered at commit;
///   the signals coalesce them);
/// - each time `LISTEN` is (re)established: notifications sent while the connection was down are
///   lost, so the follower reads the feed from its position and catches up;
/// - from a slow look (`fallbackInterval`, about 1 s) at the database's id, the feed's head and the
///   saved catalog, on the same connection: a commit that came with no notification (a writer
///   that sent none, a catalog saved) is signalled, a look that found nothing new says `quiet`
///   (so the follower knows its index is fresh without reading), and a connection that no longer
///   answers within `lookTimeout` is closed and replaced;
/// - every `fallbackInterval` while there is no listening connection, so that a follower whose pool
///   still works keeps reading.
///
/// A dropped connection is re-established with back-off (50 ms doubling to 2 s, reset once
/// `LISTEN` succeeds). The listening connection is one of the pool's, leased for as long as it
/// listens, named `tollgate-listen` (`application_name`) for `pg_stat_activity`.
final class PostgresChangeListener: Sendable {
  static let lookTimeout: Duration = .seconds(5)
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

  /// Runs until its task is cancelled (the signals' end cancels it); every wait in it ends on
  /// cancellation, and a statement in flight on a connection that may not answer is ended by
  /// closing that connection.
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
            "the connection listening for change notifications failed; polling every second until it is back",
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

  /// Leases a connection, listens on it until it fails (or the task is cancelled), and gives it
  /// back. `established` runs once `LISTEN` has succeeded.
  private func listenOnce(established: () -> Void) async throws {
    try await storage.database.withConnection { connection in
      try await connection.query(
        "SET application_name = '\(unescaped: PostgresEntitlementStorage.listenerApplicationName)'", logger: logger)
      defer { listening.store(false, ordering: .relaxed) }
      do {
        try await connection.listen(on: PostgresEntitlementWriter.notificationChannel) { notifications in
          listening.store(true, ordering: .relaxed)
          established()
          // Whatever was committed before LISTEN took effect was not notified: read it.
          continuation.changed()
          try await follow(notifications, on: connection)
        }
      } catch {
        // Back to the pool as any other connection, if it still works.
        _ = try? await connection.query("RESET application_name", logger: logger)
        throw error
      }
    }
  }

  /// Signals each notification and looks every `fallbackInterval`, until either fails.
  private func follow(_ notifications: PostgresNotificationSequence, on connection: PostgresConnection)
    async throws
  {
    let first = try await look(connection)
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
        while true {
          try await Task.sleep(for: self.storage.fallbackInterval)
          let now = try await self.look(connection)
          let heard = self.heard.exchange(false, ordering: .relaxed)
          if now == mark {
            self.continuation.quiet()
          } else {
            mark = now
            if !heard { self.continuation.changed() }
          }
        }
      }
      defer { group.cancelAll() }
      _ = try await group.next()
    }
  }

  /// Reads the mark on the listening connection within `lookTimeout`. A connection that does not
  /// answer in time (or a look cut short by cancellation) is closed: its statement in flight then
  /// fails, nothing waits on it, and the pool replaces it.
  private func look(_ connection: PostgresConnection) async throws -> Mark {
    let mark = try await withThrowingTaskGroup(of: Mark?.self) { group in
      group.addTask { try await self.readMark(connection) }
      group.addTask {
        try? await Task.sleep(for: Self.lookTimeout)
        return nil
      }
      defer { group.cancelAll() }
      let first = try await group.next() ?? nil
      if first == nil { try? await connection.close() }
      return first
    }
    guard let mark else {
      try Task.checkCancellation()
      throw ListeningEnded(description: "no answer within \(Self.lookTimeout.components.seconds) s")
    }
    storage.noteDatabaseId(mark.databaseId)
    return mark
  }

  private func readMark(_ connection: PostgresConnection) async throws -> Mark {
    let rows = try await connection.query(
      """
      SELECT (SELECT database_id FROM database_meta WHERE id = 1),
        (SELECT COALESCE(MAX(seq), 0) FROM change_feed),
        (SELECT saved_at_ms FROM catalog WHERE id = 1)
      """, logger: logger
    ).collect()
    guard let row = rows.first else { throw PostgresStorageError.undecodable("look returned no row") }
    let (databaseId, head, savedAt) = try row.decode((String?, Int64, Int64?).self)
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

/// Why the listening connection was given up: it ended, or it stopped answering.
struct ListeningEnded: Error, CustomStringConvertible {
  var description: String
}

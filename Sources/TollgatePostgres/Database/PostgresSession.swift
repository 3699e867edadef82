import Logging
import NIOCore
import PostgresNIO

/// One pooled connection, lent to a body of `PostgresTollgateDatabase.transaction` or
/// `withConnection`: its statements are written as `PostgresConnection`'s are
/// (`session.query(…)`, then `.collect()`, `for try await row in …` or `.decode(…)`), but never to
/// a connection that is already closed.
///
/// postgres-nio (1.33) never answers a statement written to a connection the server has already
/// closed (a restart, a failover, `pg_terminate_backend`, a dropped link): the closed channel
/// drops the write and its caller waits forever, holding its pooled connection and whatever waits
/// on it (a worker's whole inbox loop stopped claiming after PostgreSQL restarted). A statement
/// in flight when the connection closes is failed by postgres-nio; one written after is not. So
/// each statement is written on the connection's event loop, right after checking there that the
/// connection is still open: on that loop, the write either reaches the connection before its
/// close (which then fails it) or is refused here (`PostgresConnectionClosed`). Either way the
/// caller gets an error at once and its transaction ends; the pool replaces the connection.
public struct PostgresSession: Sendable {
  let connection: PostgresConnection

  init(_ connection: PostgresConnection) {
    self.connection = connection
  }

  /// Runs `query` and returns its rows, all collected before this returns (for statements of a
  /// few rows; `forEachRow` reads a big one a batch at a time), or throws at once when the connection has
  /// closed before the statement could be written (`PostgresConnectionClosed`).
  @discardableResult
  public func query(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws
    -> PostgresRows
  {
    let connection = self.connection
    let result = try await connection.eventLoop.flatSubmit { () -> EventLoopFuture<PostgresQueryResult> in
      // On the connection's event loop: nothing can close it between this check and the write.
      guard !connection.isClosed else {
        return connection.eventLoop.makeFailedFuture(PostgresConnectionClosed())
      }
      return connection.query(query, logger: logger, file: file, line: line)
    }.get()
    return PostgresRows(rows: result.rows)
  }

  /// Runs `query` and hands its rows to `each` one by one, holding at most `batch` rows at a time
  /// however many the statement returns (a whole table): for reads too big to collect, where
  /// `query` would hold every row at once.
  ///
  /// The rows come through a server-side cursor (`DECLARE … NO SCROLL CURSOR FOR query`, then
  /// `FETCH FORWARD batch` until one returns fewer), each statement written as `query` writes
  /// them: never to a closed connection. So the session must be inside a transaction (a cursor
  /// lives only in one: `PostgresTollgateDatabase.transaction`, or `BEGIN` on `withConnection`),
  /// and every row comes from that transaction's snapshot. Not postgres-nio's own row sequence:
  /// its async `query` writes the statement off the event loop, where the closed check above
  /// cannot guard it. When `each` throws, or a fetch fails, the rest is never read and the error
  /// is thrown; the cursor ends with the transaction.
  public func forEachRow(
    _ query: PostgresQuery, batch: Int = 1_000, logger: Logger, file: String = #fileID, line: Int = #line,
    _ each: (PostgresRow) async throws -> Void
  ) async throws {
    let batch = max(batch, 1)
    let cursor = "tollgate_rows_\(UInt64.random(in: 0...UInt64.max))"
    try await self.query(
      PostgresQuery(unsafeSQL: "DECLARE \(cursor) NO SCROLL CURSOR FOR \(query.sql)", binds: query.binds),
      logger: logger, file: file, line: line)
    while true {
      let rows = try await self.query(
        PostgresQuery(unsafeSQL: "FETCH FORWARD \(batch) FROM \(cursor)"), logger: logger, file: file, line: line
      ).rows
      for row in rows { try await each(row) }
      if rows.count < batch { break }
    }
    try await self.query(PostgresQuery(unsafeSQL: "CLOSE \(cursor)"), logger: logger, file: file, line: line)
  }

  /// Whether the connection is closed (the server ended it, or the pool did).
  public var isClosed: Bool { connection.isClosed }

  /// Listens on `channel` while `consume` runs (postgres-nio's `listen(on:consume:)`), or throws
  /// at once when the connection is already closed.
  public func listen<Value>(
    on channel: String, consume: (PostgresNotificationSequence) async throws -> Value
  ) async throws -> Value {
    guard !connection.isClosed else { throw PostgresConnectionClosed() }
    return try await connection.listen(on: channel, consume: consume)
  }

  /// Closes the connection (the pool then replaces it).
  public func close() async throws {
    try await connection.close()
  }
}

/// The rows of one statement (`PostgresSession.query`), read as postgres-nio's row sequence is:
/// `collect()`, `for try await row in rows`, or `rows.decode(…)`.
public struct PostgresRows: AsyncSequence, Sendable {
  public typealias Element = PostgresRow
  public let rows: [PostgresRow]

  /// Every row.
  public func collect() async throws -> [PostgresRow] { rows }

  public func makeAsyncIterator() -> Iterator { Iterator(base: rows.makeIterator()) }

  public struct Iterator: AsyncIteratorProtocol {
    var base: IndexingIterator<[PostgresRow]>
    public mutating func next() async throws -> PostgresRow? { base.next() }
  }
}

/// The connection closed before a statement could be written to it: the server ended it (a
/// restart, a failover, an administrator) or the link dropped. Nothing of the statement ran; the
/// transaction it belonged to, if any, ended with the connection.
public struct PostgresConnectionClosed: Error, Sendable, CustomStringConvertible {
  public init() {}
  public var description: String { "the connection to PostgreSQL closed before the statement could be sent" }
}

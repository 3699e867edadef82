import Testing
import TollgateTesting

@testable import TollgateSQLite

/// Compiled statements kept for reuse: the same SQL reuses its handle, a statement in use is never
/// handed out twice, and a statement given back holds no read open.
@Suite("SQLite prepared statements kept for reuse")
struct PreparedStatementsTests {
  static func open(_ dir: TemporaryDirectory) throws -> Connection {
    let connection = try Connection(path: dir.file("prepared.sqlite"))
    try connection.execute("CREATE TABLE t (k INTEGER NOT NULL)")
    for k in 1...3 { try connection.execute("INSERT INTO t (k) VALUES (?)", [.integer(Int64(k))]) }
    return connection
  }

  @Test("the same SQL reuses its compiled statement once the first has ended")
  func reused() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let connection = try Self.open(dir)
    let first = try connection.prepare("SELECT k FROM t ORDER BY k").handle
    let second = try connection.prepare("SELECT k FROM t ORDER BY k")
    #expect(second.handle == first)
    #expect(try second.rows { $0.int64(at: 0) } == [1, 2, 3])
    #expect(try connection.prepare("SELECT k FROM t ORDER BY k DESC").handle != first)
  }

  @Test("a query run inside another's rows with the same SQL gets a statement of its own")
  func nested() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let connection = try Self.open(dir)
    let sql = "SELECT k FROM t ORDER BY k"
    let pairs = try connection.prepare(sql).rows { outer in
      (outer.int64(at: 0), try connection.prepare(sql).rows { $0.int64(at: 0) })
    }
    #expect(pairs.map(\.0) == [1, 2, 3])
    #expect(pairs.allSatisfy { $0.1 == [1, 2, 3] })
  }

  @Test("a statement left on a row and given back holds no read open: a checkpoint restarts the log")
  func givenBackReset() throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let connection = try Self.open(dir)
    do {
      let statement = try connection.prepare("SELECT k FROM t")
      try statement.bind([])
      #expect(try statement.step())
    }
    let other = try Connection(path: dir.file("prepared.sqlite"))
    try other.execute("INSERT INTO t (k) VALUES (4)")
    let checkpoint = try other.prepare("PRAGMA wal_checkpoint(TRUNCATE)").rows { $0.int64(at: 0) }
    #expect(checkpoint == [0], "busy: a reader still holds the log")
  }
}

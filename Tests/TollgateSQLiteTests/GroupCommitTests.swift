import Dispatch
import Testing
import TollgateSQLite
import TollgateTesting

/// Group commit: writes that wait together for the connection's queue share one transaction and
/// its one commit, each in its own savepoint.
@Suite("SQLite group commit")
struct GroupCommitTests {
  struct Refused: Error, Equatable {}

  /// A connection with a table `t (k TEXT UNIQUE)`.
  static func open(_ dir: TemporaryDirectory) throws -> SerializedConnection {
    let connection = try SerializedConnection(path: dir.file("group.sqlite"))
    try connection.readSync { try $0.execute("CREATE TABLE t (k TEXT NOT NULL UNIQUE)") }
    return connection
  }

  static func keys(_ connection: SerializedConnection) throws -> Set<String> {
    Set(try connection.readSync { try $0.prepare("SELECT k FROM t").rows { $0.string(at: 0) } })
  }

  /// Holds the connection's queue (a read that waits for `release`) while `writes` are made, until
  /// all of them wait; then lets them run. Returns each write's outcome, by its number.
  static func heldWhile(
    _ connection: SerializedConnection, writes count: Int,
    _ write: @escaping @Sendable (Int, Connection) throws -> Void
  ) async throws -> [Int: Result<Void, any Error>] {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    async let held: Void = connection.read { _ in
      entered.signal()
      release.wait()
    }
    try #require(await eventually { entered.wait(timeout: .now()) == .success } != nil, "the queue is held")
    let outcomes = try await withThrowingTaskGroup(of: (Int, Result<Void, any Error>).self) { group in
      for number in 0..<count {
        group.addTask {
          do {
            try await connection.write { try write(number, $0) }
            return (number, .success(()))
          } catch {
            return (number, .failure(error))
          }
        }
      }
      let waited = await eventually { connection.waitingWrites == count }
      release.signal()
      try #require(waited != nil, "\(connection.waitingWrites) of \(count) writes waiting")
      var outcomes: [Int: Result<Void, any Error>] = [:]
      for try await (number, outcome) in group { outcomes[number] = outcome }
      return outcomes
    }
    try await held
    return outcomes
  }

  @Test("writes waiting together share one commit; a write that throws undoes only its own changes")
  func oneCommitForWaitingWrites() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let connection = try Self.open(dir)
    let before = connection.commits
    let outcomes = try await Self.heldWhile(connection, writes: 40) { number, db in
      try db.execute("INSERT INTO t (k) VALUES (?)", [.text("k\(number)")])
      // 7 throws an error of its own after writing; 13 breaks a constraint after writing.
      if number == 7 { throw Refused() }
      if number == 13 { try db.execute("INSERT INTO t (k) VALUES ('k0'), ('k0')") }
    }
    let after = connection.commits
    #expect(after.transactions - before.transactions == 1, "\(before) → \(after)")
    #expect(after.writes - before.writes == 38)
    let expected = Set((0..<40).filter { $0 != 7 && $0 != 13 }.map { "k\($0)" })
    #expect(try Self.keys(connection) == expected)
    for (number, outcome) in outcomes {
      switch (number, outcome) {
      case (7, .failure(let error)): #expect(error is Refused)
      case (13, .failure(let error)): #expect((error as? DatabaseError)?.code == .constraint, "\(error)")
      case (_, .success): #expect(number != 7 && number != 13)
      case (_, .failure(let error)): Issue.record("write \(number) failed: \(error)")
      }
    }
  }

  @Test("more writes waiting than one transaction takes: the rest commit in the next ones, every one lands")
  func groupLimit() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let connection = try Self.open(dir)
    let count = SerializedConnection.groupLimit * 2 + 5
    let before = connection.commits
    let outcomes = try await Self.heldWhile(connection, writes: count) { number, db in
      try db.execute("INSERT INTO t (k) VALUES (?)", [.text("k\(number)")])
    }
    let after = connection.commits
    #expect(after.transactions - before.transactions == 3, "\(before) → \(after)")
    #expect(after.writes - before.writes == UInt64(count))
    #expect(outcomes.values.allSatisfy { (try? $0.get()) != nil })
    #expect(try Self.keys(connection).count == count)
  }

  @Test("a write alone on an idle connection commits at once, in a transaction of its own; its error undoes it")
  func aloneOnIdle() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let connection = try Self.open(dir)
    try await connection.write { try $0.execute("INSERT INTO t (k) VALUES ('a')") }
    await #expect(throws: Refused.self) {
      try await connection.write { db in
        try db.execute("INSERT INTO t (k) VALUES ('b')")
        throw Refused()
      }
    }
    #expect(try Self.keys(connection) == ["a"])
    #expect(connection.commits.transactions == 1 && connection.commits.writes == 1, "\(connection.commits)")
  }
}

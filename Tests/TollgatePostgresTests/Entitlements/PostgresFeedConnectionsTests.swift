import Testing
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateTesting

/// The change feed's connections are kept free of a replica's other calls
/// (`PostgresEntitlementStorage.init(…, otherCallsAtOnce:)`, as `serve` opens it).
@Suite("PostgreSQL: the feed's connections")
struct PostgresFeedConnectionsTests {
  @Test("submission reads stuck on a lock hold no connection the follower's catch-up needs")
  func stuckSubmissionsLeaveTheFeedAConnection() async throws {
    let location = try await TestPostgres.freshDatabase()
    let logger = PostgresEntitlements.logger
    let pool = 4
    let storage = PostgresEntitlementStorage(
      database: try await PostgresTollgateDatabase.connect(
        location, environment: [:], nowMs: 1, create: true, maximumConnections: pool, logger: logger),
      otherCallsAtOnce: pool - PostgresEntitlementStorage.feedConnections, logger: logger)
    let other = PostgresEntitlementStorage(
      database: try await PostgresTollgateDatabase.connect(
        location, environment: [:], nowMs: 1, create: false, maximumConnections: 2, logger: logger))
    let written = try await other.replaceEntitlements(
      userId: "a", with: [.sample(userId: "a", expiresAtMs: 100)], reason: "t", nowMs: 1)

    let locked = TaskCounter()
    let released = TaskCounter()
    let answered = try await withThrowingTaskGroup(of: Bool?.self) { group in
      // Another process holds the inbox: every read of a submission waits, on a connection.
      group.addTask {
        try await other.database.transaction { connection in
          try await connection.query("LOCK TABLE inbox IN ACCESS EXCLUSIVE MODE", logger: logger)
          locked.add()
          while released.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
        return nil
      }
      #expect(await eventually(timeout: .seconds(20)) { locked.count > 0 } != nil)
      for _ in 0..<(pool * 2) {
        group.addTask {
          _ = try await storage.submission(id: 1)
          return nil
        }
      }
      // The first of them waits on the lock: every one of them has asked for a connection.
      let waiting = try await eventually(timeout: .seconds(20)) { try await Self.lockWaiters(other) >= 1 }
      #expect(waiting != nil, "a submission read waits on the lock")
      group.addTask {
        let catchUp = try await storage.catchUp(after: 0, limit: 10)
        return catchUp.entries.map(\.seq) == [written]
      }
      // Bounded: without a connection the catch-up would wait as long as the lock is held.
      group.addTask {
        let deadline = ContinuousClock.now + .seconds(20)
        while released.count == 0, ContinuousClock.now < deadline {
          try await Task.sleep(for: .milliseconds(10))
        }
        return false
      }
      var answer: Bool?
      while answer == nil, let next = try await group.next() { answer = next }
      released.add()
      try await group.waitForAll()
      return answer ?? false
    }
    #expect(answered, "the catch-up answered while the submission reads waited")
    #expect(try await Self.lockWaiters(other) == 0)
    await storage.close()
    await other.close()
  }

  /// How many sessions of the test database wait for a lock now.
  static func lockWaiters(_ storage: PostgresEntitlementStorage) async throws -> Int64 {
    let rows = try await storage.database.query(
      "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")
    return try rows.first?.decode(Int64.self) ?? 0
  }
}

import PostgresNIO
import Testing
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateTesting

/// `changeSignals` on PostgreSQL: `LISTEN tollgate_changes` on a connection of its own. The
/// mechanism tests set the fallback look to an hour, so that a signal can only come from a
/// notification or from the listening connection being established: the timeouts are generous
/// (the full suite shares two cores); the wake-up's speed is measured by the benchmarks.
@Suite("PostgreSQL change signals")
struct PostgresChangeSignalsTests {
  /// A follower's side: counts signals and quiet looks until cancelled.
  struct Following {
    let signals = TaskCounter()
    let quiets = TaskCounter()
    let task: Task<Void, Never>

    init(_ storage: PostgresEntitlementStorage) {
      let quiets = quiets
      let sequence = storage.changeSignals(every: .milliseconds(2)) { quiets.add() }
      let signals = signals
      task = Task {
        for await _ in sequence { signals.add() }
      }
    }

    /// Waits until at least `count` signals have come.
    func reach(_ count: Int) async -> Bool {
      await eventually(timeout: .seconds(20)) { signals.count >= count } != nil
    }

    /// The count once no signal came for half a second (the one when LISTEN took effect can come
    /// a while after the first on a loaded machine; a fixed 200 ms once missed it).
    func settled() async throws -> Int {
      var count = signals.count
      for _ in 0..<40 {
        try await Task.sleep(for: .milliseconds(500))
        if signals.count == count { break }
        count = signals.count
      }
      return count
    }
  }

  @Test("one at once, one when listening starts, one for each commit by another pool")
  func notificationSignals() async throws {
    try await PostgresEntitlements.withStorages(count: 2, fallbackInterval: .seconds(3_600)) { _, storages in
      let (listening, writer) = (storages[0], storages[1])
      let following = Following(listening)
      defer { following.task.cancel() }
      #expect(try await PostgresEntitlements.waitForListeners(writer, 1))
      // The first signal and the one when LISTEN took effect (one, if they came before the first was taken).
      #expect(await following.reach(1))
      let settled = try await following.settled()

      try await writer.replaceEntitlements(
        userId: "a", with: [.sample(userId: "a", expiresAtMs: 1)], reason: "t", nowMs: 1)
      #expect(await following.reach(settled + 1), "a commit by another pool signals")
      // A rolled-back write notifies nobody; a batch notifies once.
      struct Abandon: Error {}
      await #expect(throws: Abandon.self) {
        try await writer.database.transaction { connection in
          try await PostgresEntitlementWriter.lockFeed(connection, logger: PostgresEntitlements.logger)
          try await PostgresEntitlementWriter.replace(
            connection, userId: "b", records: [], reason: "t", nowMs: 2, logger: PostgresEntitlements.logger)
          throw Abandon()
        }
      }
      try await writer.replaceEntitlements(
        batch: (0..<50).map { (userId: "u\($0)", records: []) }, reason: "t", nowMs: 3)
      #expect(await following.reach(settled + 2))
      try await Task.sleep(for: .milliseconds(300))
      #expect(following.signals.count == settled + 2)
    }
  }

  @Test("a killed listening connection is replaced: one signal when it listens again, and commits signal again")
  func reconnects() async throws {
    try await PostgresEntitlements.withStorages(count: 2, fallbackInterval: .seconds(3_600)) { _, storages in
      let (listening, writer) = (storages[0], storages[1])
      let following = Following(listening)
      defer { following.task.cancel() }
      #expect(try await PostgresEntitlements.waitForListeners(writer, 1))
      #expect(await following.reach(1))
      let before = try await following.settled()

      #expect(try await PostgresEntitlements.killListeners(writer) == 1)
      // Listening again: one signal for what may have been committed meanwhile.
      #expect(await following.reach(before + 1), "no signal when the connection listened again")
      #expect(try await PostgresEntitlements.waitForListeners(writer, 1))
      let again = following.signals.count
      try await writer.replaceEntitlements(userId: "a", with: [], reason: "t", nowMs: 1)
      #expect(await following.reach(again + 1), "a commit after the reconnect signals")
    }
  }

  @Test("the fallback look: a commit with no notification is signalled, and a look that finds nothing is quiet")
  func fallbackLook() async throws {
    try await PostgresEntitlements.withStorages(count: 2, fallbackInterval: .milliseconds(100)) { _, storages in
      let (listening, writer) = (storages[0], storages[1])
      let following = Following(listening)
      defer { following.task.cancel() }
      #expect(await following.reach(1))
      #expect(await eventually(timeout: .seconds(20)) { following.quiets.count >= 3 } != nil, "quiet looks")
      let before = following.signals.count
      // An append that sends no notification (as a writer that lost it).
      _ = try await writer.database.query(
        "INSERT INTO change_feed (user_id, reason, at_ms) VALUES ('silent', 't', 1)")
      #expect(await following.reach(before + 1), "the look did not see the silent commit")
      // A catalog saved by a worker (no feed entry) is seen too: the follower reads its access levels.
      let settled = following.signals.count
      _ = try await writer.database.query(
        "INSERT INTO catalog (id, catalog_json, saved_at_ms) VALUES (1, '{}', 5)")
      #expect(await following.reach(settled + 1), "the look did not see the saved catalog")
    }
  }

  @Test("a listening connection that stays silent while the feed moves, look after look, is replaced")
  func replacesASilentConnection() async throws {
    try await PostgresEntitlements.withStorages(count: 2, fallbackInterval: .milliseconds(100)) { _, storages in
      let (listening, writer) = (storages[0], storages[1])
      let following = Following(listening)
      defer { following.task.cancel() }
      #expect(try await PostgresEntitlements.waitForListeners(writer, 1))
      let name = PostgresEntitlementStorage.listenerApplicationName
      let pid = { () async throws -> Int32? in
        try await writer.database.query(
          """
          SELECT pid FROM pg_stat_activity WHERE application_name = \(name) AND datname = current_database()
          """
        )
        .first?.decode(Int32.self)
      }
      let first = try #require(try await pid())
      // Listening, and looking: a quiet look comes only after the look that took the first mark.
      #expect(await eventually(timeout: .seconds(20)) { following.quiets.count >= 1 } != nil)
      // Appends that notify nobody, each seen by a look of its own (its signal) before the next.
      for round in 1...PostgresEntitlementStorage.silentLooksBeforeReconnect {
        let before = following.signals.count
        _ = try await writer.database.query(
          "INSERT INTO change_feed (user_id, reason, at_ms) VALUES ('silent', 't', \(Int64(round)))")
        #expect(await following.reach(before + 1), "look \(round) did not signal")
      }
      let replaced = try await eventually(timeout: .seconds(20)) {
        let now = try await pid()
        return now != nil && now != first
      }
      #expect(replaced != nil, "the silent connection was kept")
    }
  }

  @Test("the listener ends with its follower: its connection stops listening once the follower stops")
  func endsWithTheFollower() async throws {
    try await PostgresEntitlements.withStorages(count: 2, fallbackInterval: .milliseconds(100)) { _, storages in
      let (listening, observer) = (storages[0], storages[1])
      let following = Following(listening)
      #expect(try await PostgresEntitlements.waitForListeners(observer, 1))
      #expect(await following.reach(1))
      following.task.cancel()
      await following.task.value
      // Its connection back in the pool (named as the others again) or closed: nothing listens.
      let ended = try await PostgresEntitlements.waitForListeners(observer, 0)
      #expect(ended, "the listener outlived its follower")
    }
  }
}

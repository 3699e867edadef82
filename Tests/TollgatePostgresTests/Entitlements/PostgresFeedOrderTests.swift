import PostgresNIO
import Testing
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateTesting

/// The change feed's contract on PostgreSQL: sequence numbers become visible in the order they were
/// handed out, so a follower of `changes(after:)` never skips an entry (docs/storage.md,
/// "Feed and event order").
@Suite("PostgreSQL change-feed order")
struct PostgresFeedOrderTests {
  static let logger = PostgresEntitlements.logger

  @Test("without the feed lock a later number can become visible first (what the lock is for)")
  func unorderedWithoutTheLock() async throws {
    try await PostgresEntitlements.withStorages(count: 2) { _, storages in
      let (first, second) = (storages[0], storages[1])
      let base = try await first.headSeq()
      let appended = AsyncStream.makeStream(of: Int64.self)
      let release = AsyncStream.makeStream(of: Void.self)
      // A transaction that draws a number and stays open, with no lock: as a writer that forgot it.
      let slow = Task {
        try await first.database.transaction { connection in
          let seq = try await connection.query(
            "INSERT INTO change_feed (user_id, reason, at_ms) VALUES ('slow', 't', 1) RETURNING seq",
            logger: Self.logger
          ).collect().first?.decode(Int64.self)
          appended.continuation.yield(seq ?? 0)
          for await _ in release.stream { break }
        }
      }
      var drawn = appended.stream.makeAsyncIterator()
      let slowSeq = try #require(await drawn.next())
      let fastSeq = try #require(
        try await second.database.query(
          "INSERT INTO change_feed (user_id, reason, at_ms) VALUES ('fast', 't', 1) RETURNING seq"
        ).first?.decode(Int64.self))
      #expect(fastSeq > slowSeq)
      // A follower at `base` reads the later number alone, moves past it, and never sees the earlier.
      let seen = try await second.changes(after: base, limit: 10)
      #expect(seen.map(\.seq) == [fastSeq])
      release.continuation.yield()
      try await slow.value
      #expect(try await second.changes(after: fastSeq, limit: 10).isEmpty)
    }
  }

  @Test("with the writer, a second writer waits for the first's commit: a follower sees both, in order")
  func writerOrdersAppends() async throws {
    try await PostgresEntitlements.withStorages(count: 2) { _, storages in
      let (first, second) = (storages[0], storages[1])
      let base = try await first.headSeq()
      let appended = AsyncStream.makeStream(of: Int64.self)
      let release = AsyncStream.makeStream(of: Void.self)
      let slow = Task {
        try await first.database.transaction { connection in
          try await PostgresEntitlementWriter.lockFeed(connection, logger: Self.logger)
          let seq = try await PostgresEntitlementWriter.replace(
            connection, userId: "slow", records: [], reason: "t", nowMs: 1, logger: Self.logger)
          appended.continuation.yield(seq)
          for await _ in release.stream { break }
          return seq
        }
      }
      var drawn = appended.stream.makeAsyncIterator()
      let slowSeq = try #require(await drawn.next())
      let fast = Task {
        try await second.replaceEntitlements(
          userId: "fast", with: [.sample(userId: "fast", expiresAtMs: 1)], reason: "t", nowMs: 1)
      }
      // The second writer waits on the lock: nothing is visible yet, so a follower stays at `base`.
      try await Task.sleep(for: .milliseconds(300))
      #expect(try await second.changes(after: base, limit: 10).isEmpty)
      release.continuation.yield()
      #expect(try await slow.value == slowSeq)
      let fastSeq = try await fast.value
      #expect(fastSeq > slowSeq)
      #expect(try await second.changes(after: base, limit: 10).map(\.userId) == ["slow", "fast"])
    }
  }

  @Test("writers on two pools at once, single and batch: a follower reading all along sees every entry once, in order")
  func concurrentWritersNeverSkip() async throws {
    try await PostgresEntitlements.withStorages(count: 3) { _, storages in
      let writers = Array(storages[0...1])
      let follower = storages[2]
      let perTask = 60
      let tasks = 4
      let expected = try await withThrowingTaskGroup(of: [Int64].self) { group in
        for task in 0..<tasks {
          let storage = writers[task % 2]
          group.addTask {
            var seqs: [Int64] = []
            for round in 0..<perTask {
              let user = "w\(task)-\(round % 7)"
              if round.isMultiple(of: 5) {
                let batch = (0..<3).map { (userId: "\(user)-b\($0)", records: [EntitlementRecord]()) }
                let last = try await storage.replaceEntitlements(batch: batch, reason: "batch", nowMs: 1)
                seqs += [last - 2, last - 1, last]
              } else {
                seqs.append(
                  try await storage.replaceEntitlements(
                    userId: user, with: [.sample(userId: user, expiresAtMs: Int64(round))], reason: "t", nowMs: 1))
              }
            }
            return seqs
          }
        }
        // The follower, meanwhile: small reads, each after the last entry it has.
        group.addTask {
          let total = tasks * (perTask / 5 * 3 + perTask - perTask / 5)
          var seen: [Int64] = []
          var applied: Int64 = 0
          // A skipped entry would leave it waiting for ever: give up after a minute, and the
          // comparison below fails.
          let deadline = ContinuousClock.now + .seconds(60)
          while seen.count < total, ContinuousClock.now < deadline {
            let entries = try await follower.changes(after: applied, limit: 5)
            for entry in entries {
              #expect(entry.seq > applied)
              applied = entry.seq
              seen.append(entry.seq)
            }
            if entries.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
          }
          return seen.map { -$0 }  // told apart from the writers' by sign
        }
        var written: [Int64] = []
        var followed: [Int64] = []
        for try await seqs in group {
          if seqs.first.map({ $0 < 0 }) == true { followed = seqs.map { -$0 } } else { written += seqs }
        }
        return (written.sorted(), followed)
      }
      #expect(expected.0.count == tasks * (perTask / 5 * 3 + perTask - perTask / 5))
      #expect(Set(expected.0).count == expected.0.count, "a number handed out twice")
      #expect(expected.1 == expected.0, "the follower skipped or repeated an entry")
    }
  }
}

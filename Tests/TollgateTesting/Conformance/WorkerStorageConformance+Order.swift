import Synchronization
import Testing
import TollgateCore
import TollgateStorage
import TollgateWorker

/// Feed and event order under concurrent writers: sequence numbers are handed out in commit
/// order (`EntitlementStorage.changes(after:limit:)`, `WorkerStorage.events(after:limit:)`), so a
/// reader that follows either from its last position sees every entry once, in order, and never
/// a new one at or below where it has read.
extension WorkerStorageConformance {
  /// Several handles apply changes at once while a reader follows `events(after:limit:)` from
  /// its last position, a few at a time: at the end it saw every event exactly once, in
  /// increasing order, none skipped.
  public static func eventOrderUnderConcurrentWriters(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      try await follow(sut, database, feed: nil)
    }
  }

  /// The same with the change feed: a reader following `changes(after:limit:)` (as `serve`'s
  /// follower does) and `events(after:limit:)` while several handles write.
  public static func feedOrderUnderConcurrentWriters(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let openFeed = try #require(
        database.openFeed, "\(sut.name) has no feed view: disable this case in its runner, saying why")
      try await follow(sut, database, feed: try await openFeed())
    }
  }

  private static func follow(
    _ sut: WorkerStorageUnderTest, _ database: ConformanceDatabase, feed: (any EntitlementStorage)?
  ) async throws {
    let writers = 4
    let changesEach = 12
    let handles = try await database.handles(writers)
    let reader = try await database.openHandle()
    let progress = WriterProgress()
    var events = FollowedSequence()
    var entries = FollowedSequence()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (w, handle) in handles.enumerated() {
        group.addTask {
          defer { progress.finished() }
          for n in 0..<changesEach {
            let chain = subscription("w\(w)-\(n)", user: "user-\(w)-\(n)")
            try await handle.apply(
              change(chain, events: [event("purchased", of: chain, atMs: 10)]), recompute: recompute)
          }
        }
      }
      // Follow until a read after every writer finished finds nothing new, or give up (a storage
      // that hands out entries out of order may never let the reader settle).
      let deadline = ContinuousClock.now + .seconds(30)
      while true {
        if ContinuousClock.now > deadline {
          Issue.record("\(sut.name): the reader never caught up with the writers within 30 s")
          break
        }
        let writersDone = progress.count == writers
        let newEvents = try await reader.events(after: events.last, limit: 5).map(\.id)
        events.read(newEvents)
        var newEntries: [Int64] = []
        if let feed {
          newEntries = try await feed.changes(after: entries.last, limit: 5).map(\.seq)
          entries.read(newEntries)
        }
        if writersDone && newEvents.isEmpty && newEntries.isEmpty { break }
        await Task.yield()
      }
      try await group.waitForAll()
    }

    let allEvents = try await reader.events(after: 0, limit: 100_000).map(\.id)
    #expect(allEvents.count == writers * changesEach, "\(sut.name): one event per change")
    #expect(
      events.outOfOrder.isEmpty, "\(sut.name): events read at or below the reader's position: \(events.outOfOrder)")
    #expect(
      events.seen == allEvents,
      "\(sut.name): the reader saw \(events.seen.count) of \(allEvents.count) events; missed \(Set(allEvents).subtracting(events.seen).sorted())"
    )
    if let feed {
      let allEntries = try await feed.changes(after: 0, limit: 100_000).map(\.seq)
      #expect(allEntries.count == writers * changesEach, "\(sut.name): one change-feed entry per change")
      #expect(
        entries.outOfOrder.isEmpty, "\(sut.name): entries read at or below the reader's position: \(entries.outOfOrder)"
      )
      #expect(
        entries.seen == allEntries,
        "\(sut.name): the reader saw \(entries.seen.count) of \(allEntries.count) entries; missed \(Set(allEntries).subtracting(entries.seen).sorted())"
      )
    }
  }
}

/// A reader's position in a sequence it follows, and what it saw.
private struct FollowedSequence {
  var last: Int64 = 0
  var seen: [Int64] = []
  /// Numbers read at or below the position already reached: entries committed out of order.
  var outOfOrder: [Int64] = []

  mutating func read(_ numbers: [Int64]) {
    for number in numbers {
      if number <= last { outOfOrder.append(number) }
      last = max(last, number)
      seen.append(number)
    }
  }
}

/// How many writers have finished (with or without an error: the follower stops either way).
final class WriterProgress: Sendable {
  private let finishedCount = Mutex(0)
  var count: Int { finishedCount.withLock { $0 } }
  func finished() { finishedCount.withLock { $0 += 1 } }
}

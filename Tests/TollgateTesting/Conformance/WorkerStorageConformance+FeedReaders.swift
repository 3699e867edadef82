import Testing
import TollgateCore
import TollgateStorage
import TollgateWorker

/// Feed readers (`serve` replicas) record their change-feed position
/// (`EntitlementStorage.recordFeedPosition`), and pruning keeps every entry from the lowest
/// position of the readers seen lately (`PrunePlan.changeFeedReadersSeenSinceMs`); a reader not
/// seen lately holds nothing. The feed is pruned as a prefix, so a reader whose position was
/// pruned finds that entry missing.
extension WorkerStorageConformance {
  /// Long past every retention: the oldest reader seen lately holds the feed at its position
  /// (that entry and all after it stay, whatever their age); only the entries below it go. When
  /// it moves on, the next prune goes up to its new position, and up to the newest entry (which
  /// always stays) once it has shut down (`removeFeedReader`).
  public static func liveFeedReaderHoldsTheFeed(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let feed = try await requireFeed(sut, database)
      let seqs = try await writeFeed(feed, atMs: Array(repeating: 10, count: 6))
      try await feed.recordFeedPosition(readerId: "behind", seq: seqs[2], nowMs: 900)
      try await feed.recordFeedPosition(readerId: "ahead", seq: seqs[4], nowMs: 950)

      var counts = try await database.storage.prune(retentionPast(readersSeenSinceMs: 500))
      #expect(counts.changeFeed == 2, "\(sut.name): only the entries below the reader behind went")
      #expect(counts.feedReaders == 0, "\(sut.name): both readers were seen lately")
      #expect(
        try await feed.changes(after: 0, limit: 100).map(\.seq) == Array(seqs[2...]),
        "\(sut.name): the entry at the reader's position and all after it stay")
      #expect(
        try await feed.feedMark(at: seqs[2]).entry?.seq == seqs[2], "\(sut.name): the reader finds its own entry")

      // The reader behind catches up (its row is replaced, not added): the feed goes up to it.
      try await feed.recordFeedPosition(readerId: "behind", seq: seqs[4], nowMs: 1_000)
      counts = try await database.storage.prune(retentionPast(readersSeenSinceMs: 500))
      #expect(counts.changeFeed == 2, "\(sut.name): the feed went up to the readers' position")
      #expect(try await feed.changes(after: 0, limit: 100).map(\.seq) == Array(seqs[4...]))

      // Both shut down: nothing holds the feed but its newest entry.
      try await feed.removeFeedReader(readerId: "behind")
      try await feed.removeFeedReader(readerId: "ahead")
      try await feed.removeFeedReader(readerId: "never-recorded")
      _ = try await database.storage.prune(retentionPast(readersSeenSinceMs: 500))
      #expect(
        try await feed.changes(after: 0, limit: 100).map(\.seq) == [seqs[5]], "\(sut.name): only the newest stays")
    }
  }

  /// A reader last seen before `changeFeedReadersSeenSinceMs` (a replica that crashed) holds
  /// nothing, and its row goes; a reader seen since, recorded from another handle of the
  /// database, still holds the feed at its position.
  public static func expiredFeedReaderHoldsNothing(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let feed = try await requireFeed(sut, database)
      let other = try await requireFeed(sut, database)
      let seqs = try await writeFeed(feed, atMs: Array(repeating: 10, count: 5))
      try await feed.recordFeedPosition(readerId: "crashed", seq: seqs[0], nowMs: 100)
      try await other.recordFeedPosition(readerId: "live", seq: seqs[3], nowMs: 900)

      let counts = try await database.storage.prune(retentionPast(readersSeenSinceMs: 500))
      #expect(counts.feedReaders == 1, "\(sut.name): the reader not seen since went")
      #expect(counts.changeFeed == 3, "\(sut.name): the crashed reader held nothing back")
      #expect(
        try await other.changes(after: 0, limit: 100).map(\.seq) == Array(seqs[3...]),
        "\(sut.name): the live reader still holds the feed at its position")

      // The crashed reader's row is gone: with the live one shut down, nothing holds the feed.
      try await other.removeFeedReader(readerId: "live")
      let again = try await database.storage.prune(retentionPast(readersSeenSinceMs: 500))
      #expect(again.feedReaders == 0, "\(sut.name): no reader row was left to delete")
      #expect(try await feed.changes(after: 0, limit: 100).map(\.seq) == [seqs[4]])
    }
  }

  /// Writers' clocks differ, so `at_ms` is not in `seq` order: the feed is pruned only up to its
  /// first entry young enough to keep, never past it, so what is deleted is always a prefix and
  /// a follower whose position was pruned finds its entry missing (it then reloads) instead of
  /// silently missing an entry after its position.
  public static func feedIsPrunedAsAPrefix(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let feed = try await requireFeed(sut, database)
      let seqs = try await writeFeed(feed, atMs: [10, 10, 5_000, 10, 10])
      let counts = try await database.storage.prune(
        PrunePlan(
          finishedInboxBeforeMs: 0, changeFeedBeforeMs: 1_000, eventsBeforeMs: 0, eventsDeliveredThroughId: nil))
      #expect(counts.changeFeed == 2, "\(sut.name): the two entries before the young one went")
      #expect(
        try await feed.changes(after: 0, limit: 100).map(\.seq) == Array(seqs[2...]),
        "\(sut.name): old entries after a young one stay")
    }
  }

  // MARK: Helpers

  private static func requireFeed(
    _ sut: WorkerStorageUnderTest, _ database: ConformanceDatabase
  ) async throws -> any EntitlementStorage {
    let openFeed = try #require(
      database.openFeed, "\(sut.name) has no feed view: disable this case in its runner, saying why")
    return try await openFeed()
  }

  /// One change-feed entry per time in `atMs` (a user each, written at that time); their seqs.
  private static func writeFeed(_ feed: any EntitlementStorage, atMs: [Int64]) async throws -> [Int64] {
    var seqs: [Int64] = []
    for (n, at) in atMs.enumerated() {
      let user = "reader-user-\(n)"
      seqs.append(
        try await feed.replaceEntitlements(
          userId: user, with: [.sample(userId: user, expiresAtMs: 1_000_000)], reason: "conformance", nowMs: at))
    }
    return seqs
  }

  /// Every change-feed entry long past its retention; readers seen at or after
  /// `readersSeenSinceMs` hold the feed.
  private static func retentionPast(readersSeenSinceMs: Int64) -> PrunePlan {
    PrunePlan(
      finishedInboxBeforeMs: 0, changeFeedBeforeMs: 1_000_000_000, eventsBeforeMs: 0, eventsDeliveredThroughId: nil,
      changeFeedReadersSeenSinceMs: readersSeenSinceMs)
  }
}

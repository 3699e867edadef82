import Testing
import TollgateCore
import TollgateWorker

/// Store health: the outages every worker on a database reads the outage policy from.
extension WorkerStorageConformance {
  /// A failure recorded through one handle is every handle's outage, since the earliest failure
  /// any of them recorded (a slower call asked earlier counts from when it asked); stores are
  /// apart.
  public static func storeOutagesSharedAcrossHandles(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let other = try await database.openHandle()
      #expect(try await other.storeOutages().isEmpty, "\(sut.name): no outage in a fresh database")
      try await database.storage.recordStoreFailure(.googlePlay, atMs: 500)
      #expect(try await other.storeOutages() == [.googlePlay: 500], "\(sut.name): seen by another handle")
      try await other.recordStoreFailure(.googlePlay, atMs: 900)
      try await other.recordStoreFailure(.googlePlay, atMs: 300)
      try await database.storage.recordStoreFailure(.amazon, atMs: 700)
      #expect(
        try await database.storage.storeOutages() == [.googlePlay: 300, .amazon: 700],
        "\(sut.name): the earliest failure of each store's outage")
    }
  }

  /// Several handles recording a success at once: exactly one is told it ended the outage; later
  /// successes end nothing; the next failure starts a new outage, from its own time.
  public static func storeOutageEndsOnce(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let handles = try await database.handles(4)
      for round in Int64(0)..<5 {
        try await database.storage.recordStoreFailure(.appStore, atMs: 100 + round)
        try await database.storage.recordStoreFailure(.amazon, atMs: 50)
        let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
          for handle in handles {
            group.addTask { try await handle.recordStoreSuccess(.appStore, nowMs: 200 + round) }
          }
          return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(ended.filter { $0 }.count == 1, "\(sut.name) round \(round): one handle ended it: \(ended)")
        #expect(
          try await database.storage.recordStoreSuccess(.appStore, nowMs: 300) == false,
          "\(sut.name): a success after the end ends nothing")
        #expect(
          try await handles[0].storeOutages() == [.amazon: 50], "\(sut.name): another store's outage stays")
      }
      try await handles[1].recordStoreFailure(.appStore, atMs: 1_000)
      #expect(
        try await database.storage.storeOutages()[.appStore] == 1_000,
        "\(sut.name): a new outage starts from its own failure, not an ended one's")
    }
  }
}

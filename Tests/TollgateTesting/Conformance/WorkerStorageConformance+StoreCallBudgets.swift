import Testing
import TollgateCore
import TollgateWorker

/// Store-call budgets: one request quota per store for every worker on a database.
extension WorkerStorageConformance {
  /// Four handles reserving at once from one window never get more than its limit in all, and
  /// get all of it; the next window starts afresh; a reservation for an older window (a worker
  /// whose clock is behind) spends the current one; stores are apart.
  public static func storeCallBudgetSharedAcrossHandles(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let handles = try await database.handles(4)
      let limit = 100
      let granted = try await withThrowingTaskGroup(of: Int.self) { group in
        for handle in handles {
          group.addTask {
            var total = 0
            while true {
              let got = try await handle.reserveStoreCalls(.googlePlay, windowStartMs: 60_000, wanted: 7, limit: limit)
              if got == 0 { return total }
              total += got
            }
          }
        }
        return try await group.reduce(into: [Int]()) { $0.append($1) }
      }
      #expect(granted.reduce(0, +) == limit, "\(sut.name): the window's grants add up to its limit: \(granted)")
      #expect(
        try await database.storage.reserveStoreCalls(.amazon, windowStartMs: 60_000, wanted: 5, limit: 10) == 5,
        "\(sut.name): another store's budget is its own")
      #expect(
        try await handles[2].reserveStoreCalls(.googlePlay, windowStartMs: 0, wanted: 5, limit: limit) == 0,
        "\(sut.name): an older window spends the current one, never reopens")
      #expect(
        try await handles[3].reserveStoreCalls(.googlePlay, windowStartMs: 120_000, wanted: 30, limit: limit) == 30,
        "\(sut.name): the next window starts afresh")
      #expect(
        try await handles[0].reserveStoreCalls(.googlePlay, windowStartMs: 60_000, wanted: 80, limit: limit) == 70,
        "\(sut.name): a late worker's older window counts against the newest")
    }
  }
}

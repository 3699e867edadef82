import Logging
import Synchronization
import Testing
import TollgateCore
import TollgateTesting
import TollgateWorker
import TollgateWorkerSQLite

/// `worker.storeRequestsPerMinute` across workers: two workers' budgets (each on its own handle
/// of one database, as two processes) together let through the window's limit, no more, and the
/// next window's when it comes.
@Suite("Store-call budgets shared by two workers")
struct StoreCallBudgetTests {
  @Test("two workers' calls in one window add up to the limit; the rest wait for the next window")
  func twoWorkersShareOneBudget() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let clock = ManualClock(nowMs: 10_000)
    let budgets = try (0..<2).map { _ in
      StoreCallBudget(
        store: .googlePlay, limit: 10, windowMs: 1_000, storage: try SQLiteWorkerStorage(path: path, nowMs: 1),
        nowMs: clock.function, logger: Logger(label: "budget"))
    }
    let calls = CallCount()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for call in 0..<30 {
        group.addTask {
          try await budgets[call % 2].take()
          calls.value.add(1, ordering: .relaxed)
        }
      }
      let first = await eventually(timeout: .seconds(30)) { calls.value.load(ordering: .relaxed) >= 10 }
      #expect(first != nil, "the first window's ten calls go through")
      try await Task.sleep(for: .milliseconds(300))
      #expect(calls.value.load(ordering: .relaxed) == 10, "no more than the window's limit across both workers")

      clock.advance(byMs: 1_000)
      let second = await eventually(timeout: .seconds(30)) { calls.value.load(ordering: .relaxed) >= 20 }
      #expect(second != nil, "the next window lets ten more through")
      try await Task.sleep(for: .milliseconds(300))
      #expect(calls.value.load(ordering: .relaxed) == 20, "and no more")
      group.cancelAll()
      while let result = await group.nextResult() {
        if case .failure(let error) = result { #expect(error is CancellationError) }
      }
    }
  }
}

/// Calls let through so far, shared by the test's tasks.
private final class CallCount: Sendable {
  let value = Atomic<Int>(0)
}

import Logging
import Synchronization
import Testing
import TollgateTesting
import TollgateWorker

@Suite("Store call limiter")
struct StoreCallLimiterTests {
  /// One call takes the only permit and hangs; a second call starts 20 ms later. Whether the
  /// second ran within `limit` while the first still hung (then the first is released).
  static func secondCallRunsWhileOneHangs(_ limiter: StoreCallLimiter, within limit: Duration) async -> Bool {
    let (hang, release) = AsyncStream.makeStream(of: Void.self)
    async let hung: Void = limiter.withPermit(call: "test") { for await _ in hang {} }
    let ranWhileHung = await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        // Started after the first call took the only permit.
        try? await Task.sleep(for: .milliseconds(20))
        return await limiter.withPermit(call: "test") { true }
      }
      group.addTask {
        try? await Task.sleep(for: limit)
        return false
      }
      let first = await group.next() ?? false
      release.finish()  // the hung call ends; a second call still waiting then gets its permit
      group.cancelAll()
      return first
    }
    await hung
    return ranWhileHung
  }

  @Test("a call past its overtime gives its permit back: the next call runs while the first still hangs")
  func overtime() async throws {
    let limiter = StoreCallLimiter(permits: 1, overtimeAfter: .milliseconds(50))
    let ranWhileHung = await Self.secondCallRunsWhileOneHangs(limiter, within: .seconds(20))
    #expect(ranWhileHung, "the second call waited for the hung one to end")
  }

  @Test(
    "the overtime follows the store: after fast answers, a hung call gives its permit back long before overtimeAfter")
  func overtimeFollowsTheStore() async throws {
    let limiter = StoreCallLimiter(permits: 1, overtimeAfter: .seconds(30), minimumOvertime: .milliseconds(100))
    #expect(limiter.overtime == .seconds(30), "before any answer: overtimeAfter")
    // Answered at once (no suspension: a busy machine cannot stretch them much).
    for _ in 0..<20 { _ = await limiter.withPermit(call: "test") { 1 } }
    #expect(limiter.overtime < .seconds(1), "\(limiter.overtime)")
    #expect(limiter.overtime >= .milliseconds(100))
    // Far less than overtimeAfter (30 s): only an overtime that followed the store frees it.
    let ranWhileHung = await Self.secondCallRunsWhileOneHangs(limiter, within: .seconds(5))
    #expect(ranWhileHung, "the second call waited for the hung one past 5 s")
  }

  @Test("calls within their time are bounded: no more than the permits run at once")
  func bounded() async throws {
    let limiter = StoreCallLimiter(permits: 2, overtimeAfter: .seconds(60), minimumOvertime: .seconds(60))
    let running = Running()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          await limiter.withPermit(call: "test") {
            await running.enter()
            try? await Task.sleep(for: .milliseconds(5))
            await running.leave()
          }
        }
      }
    }
    #expect(await running.most <= 2)
  }

  @Test("built with a budget, every call takes one call from it first: past the window's limit, calls wait")
  func takesFromItsBudget() async throws {
    let clock = ManualClock(nowMs: 10_000)
    let budget = StoreCallBudget(
      store: .googlePlay, limit: 3, windowMs: 1_000, storage: FakeWorkerStorage(), nowMs: clock.function,
      logger: Logger(label: "budget"))
    let limiter = StoreCallLimiter(permits: 10, budget: budget)
    let calls = Calls()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<5 {
        group.addTask { _ = await limiter.withPermit(call: "test") { calls.value.add(1, ordering: .relaxed) } }
      }
      let first = await eventually(timeout: .seconds(30)) { calls.value.load(ordering: .relaxed) >= 3 }
      #expect(first != nil, "the window's three calls go through")
      try? await Task.sleep(for: .milliseconds(300))
      #expect(calls.value.load(ordering: .relaxed) == 3, "no more than the window's limit, however many permits")
      clock.advance(byMs: 1_000)
      await group.waitForAll()
    }
    #expect(calls.value.load(ordering: .relaxed) == 5, "the rest in the next window")
  }
}

private actor Running {
  var now = 0
  var most = 0
  func enter() {
    now += 1
    most = max(most, now)
  }
  func leave() { now -= 1 }
}

/// Calls let through so far, shared by the test's tasks.
private final class Calls: Sendable {
  let value = Atomic<Int>(0)
}

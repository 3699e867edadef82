import Synchronization
import TollgateCore

/// Bounds how many calls to one store are in flight at once. Releasing is synchronous (a lock,
/// no actor hop), so a gateway releases in a `defer` without spawning a task.
///
/// A call that is still running after `overtimeAfter` gives its permit back early and goes on
/// outside the bound: a store that hangs on some calls (each one waits for its HTTP timeout)
/// would otherwise hold every permit with hung calls and stop the calls of every other chain
/// behind them (issue 24: with 5% of calls hanging, throughput fell 19–42×). The item making the
/// call gives its place in the worker loop back then too (`LoopSlot`, issue 30: at a launch day's
/// rate, the items waiting on hung calls filled every place). Calls past their overtime are
/// bounded by the loop's bound of such items (`VerifierWorker.parkedPerSlot`), each of which
/// makes one store call at a time.
///
/// The overtime follows the store: `overtimeFactor` times the typical duration of its recent calls
/// that were answered (an average over the last few dozen), never less than `minimumOvertime` nor
/// more than `overtimeAfter`. A store answering in 10 ms frees a hung call's permit after 40 ms,
/// not 2 s: with 4 permits and a fixed 2 s, at most two hung calls a second could be set aside,
/// and at a launch day's rate with 5% of calls hanging the permits were all held (issue 30: the
/// other chains ran at 12–14% of their healthy rate). The hung calls' share of the permits is
/// about (calls hanging a second) × overtime: at 45 a second, 100 ms (the floor until session 19,
/// with 8 × typical) held all 4 permits, and the other chains ran at 0.60–0.77 of their healthy
/// rate; with 4 × typical and 20 ms, 0.76–1.00 (`Benchmarks/worker`). A call slower than 4 × the
/// typical one but not hung (a store's tail) is only set aside too: it goes on, outside the bound.
public final class StoreCallLimiter: Sendable {
  private struct State {
    var permits: Int
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// The typical duration of the recent calls that were answered (nanoseconds), nil before the
    /// first one.
    var typicalNs: Int64?
  }

  private let state: Mutex<State>
  private let overtimeAfter: Duration
  private let minimumOvertime: Duration
  static let overtimeFactor: Int64 = 4
  /// The deployment's request budget for the store, when one is configured: each call takes one
  /// call from it (waiting for the next window when it is spent) before it takes a permit.
  private let budget: StoreCallBudget?
  /// Where each call's duration goes, once the worker has attached its metrics.
  private let timings = Mutex<(timings: StoreCallTimings, store: Store)?>(nil)

  /// - Parameters:
  ///   - permits: calls in flight at once.
  ///   - budget: the store's budget shared by every worker on the database, for a store with
  ///     `worker.storeRequestsPerMinute` (`StoreCallBudget.configured`); nil: none.
  ///   - overtimeAfter: the longest a call holds its permit (and how long before any call was
  ///     answered).
  ///   - minimumOvertime: the shortest.
  public init(
    permits: Int, overtimeAfter: Duration = .seconds(2), minimumOvertime: Duration = .milliseconds(20),
    budget: StoreCallBudget? = nil
  ) {
    state = Mutex(State(permits: permits))
    self.overtimeAfter = overtimeAfter
    self.minimumOvertime = min(minimumOvertime, overtimeAfter)
    self.budget = budget
  }

  /// Reports the duration of every call from now on to `timings`, as calls to `store` (the
  /// worker attaches its metrics to each gateway's limiter; the last one attached wins).
  func report(to timings: StoreCallTimings, store: Store) {
    self.timings.withLock { $0 = (timings, store) }
  }

  /// Runs `body` once the store's budget allows a call (when there is one) and a permit is free,
  /// and frees the permit after (or once `body` has run for `overtimeAfter`, whichever is first).
  /// `call` names the store's API for the call-duration histogram (`StoreCallTimings`): a fixed
  /// name per API, never a value from the request.
  public func withPermit<T: Sendable, E: Error>(call: String, _ body: () async throws(E) -> T) async throws(E) -> T {
    if let budget {
      // Cancelled while waiting for the budget: the call goes on to see its own cancellation.
      try? await budget.take()
    }
    await acquire()
    let permit = Permit()
    let overtime = self.overtime
    let slot = LoopSlot.current
    let result = await withTaskGroup(of: Void.self, returning: Result<T, E>.self) { group in
      group.addTask {
        // Overtime: the permit, and the item's place in the worker loop, go back while the call
        // goes on.
        do { try await Task.sleep(for: overtime) } catch { return }
        self.release(permit)
        slot?.release()
      }
      let result: Result<T, E>
      let started = ContinuousClock.now
      do throws(E) {
        result = .success(try await body())
      } catch {
        result = .failure(error)
      }
      let tookNs = (ContinuousClock.now - started).nanoseconds
      if case .success = result { answered(afterNs: tookNs) }
      if let reporting = timings.withLock({ $0 }) {
        reporting.timings.record(store: reporting.store, call: call, nanoseconds: tookNs)
      }
      group.cancelAll()
      return result
    }
    release(permit)
    return try result.get()
  }

  /// Runs `body`, CPU-bound work of `stage` (a signature or chain check), and charges the CPU
  /// time the thread spent in it to the worker's stage accounting, once the worker has attached
  /// its metrics. `body` must not suspend (it is synchronous): the thread's clock is its own.
  public func measured<T, E: Error>(_ stage: WorkerStage, _ body: () throws(E) -> T) throws(E) -> T {
    guard let reporting = timings.withLock({ $0 }) else { return try body() }
    let started = StoreCallTimings.threadCPUNanoseconds()
    defer {
      reporting.timings.record(stage: stage, nanoseconds: StoreCallTimings.threadCPUNanoseconds() - started)
    }
    return try body()
  }

  /// How long the next call may hold its permit.
  public var overtime: Duration {
    guard let typicalNs = state.withLock({ $0.typicalNs }) else { return overtimeAfter }
    let proposed = Duration.nanoseconds(typicalNs.multipliedReportingOverflow(by: Self.overtimeFactor).partialValue)
    return min(max(proposed, minimumOvertime), overtimeAfter)
  }

  /// A call was answered after `nanoseconds`: the typical duration moves a sixteenth of the way.
  private func answered(afterNs nanoseconds: Int64) {
    state.withLock { state in
      let typical = state.typicalNs ?? nanoseconds
      state.typicalNs = typical + (nanoseconds - typical) / 16
    }
  }

  private func acquire() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let granted = state.withLock { state -> Bool in
        if state.permits > 0 {
          state.permits -= 1
          return true
        }
        state.waiters.append(continuation)
        return false
      }
      if granted { continuation.resume() }
    }
  }

  /// Gives `permit` back, once (the call ended, or ran into its overtime).
  private func release(_ permit: Permit) {
    guard !permit.released.exchange(true, ordering: .acquiringAndReleasing) else { return }
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      if state.waiters.isEmpty {
        state.permits += 1
        return nil
      }
      return state.waiters.removeFirst()  // the permit is handed over
    }
    next?.resume()
  }

  /// One call's permit, given back at most once.
  private final class Permit: Sendable {
    let released = Atomic<Bool>(false)
  }
}

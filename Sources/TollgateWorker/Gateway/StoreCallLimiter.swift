import Synchronization

/// Bounds how many calls to one store are in flight at once. Releasing is synchronous (a lock,
/// no actor hop), so a gateway releases in a `defer` without spawning a task.
public final class StoreCallLimiter: Sendable {
  private struct State {
    var permits: Int
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state: Mutex<State>

  public init(permits: Int) {
    state = Mutex(State(permits: permits))
  }

  /// Runs `body` once a permit is free, and frees it after.
  public func withPermit<T: Sendable, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
    await acquire()
    defer { release() }
    return try await body()
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

  private func release() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      if state.waiters.isEmpty {
        state.permits += 1
        return nil
      }
      return state.waiters.removeFirst()  // the permit is handed over
    }
    next?.resume()
  }
}

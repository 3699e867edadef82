import Synchronization

/// Lets at most `limit` calls run at once; the others wait in arrival order. A `serve` replica's
/// submissions and the waits on their verdicts go through one (`PostgresEntitlementStorage`), so
/// however many of them there are, they never hold every connection of the pool: the change
/// feed's (the listener's, the follower's catch-up, the fallback look) stay free, and a write
/// reaches the index without queueing behind submissions.
///
/// A call cancelled while it waits leaves the line at once with `CancellationError`; a call let
/// in runs to its end and then lets the next one in.
final class PostgresCallGate: Sendable {
  private struct State {
    var running = 0
    var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    var lastId = 0
  }

  /// The most calls at once (at least 1).
  let limit: Int
  private let state = Mutex(State())

  init(limit: Int) {
    self.limit = max(1, limit)
  }

  /// Calls running now and calls waiting, for tests.
  var counts: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count) } }

  /// Runs `body` once fewer than `limit` calls run.
  func run<Value>(_ body: () async throws -> Value) async throws -> Value {
    try await enter()
    defer { leave() }
    return try await body()
  }

  private func enter() async throws {
    let id: Int? = state.withLock { state in
      if state.running < limit {
        state.running += 1
        return nil
      }
      state.lastId += 1
      return state.lastId
    }
    guard let id else { return }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let now: Result<Void, any Error>? = state.withLock { state in
          // Cancelled before the line was joined: the handler below found nothing to end.
          if Task.isCancelled { return .failure(CancellationError()) }
          if state.running < limit {
            state.running += 1
            return .success(())
          }
          state.waiting.append((id, continuation))
          return nil
        }
        if let now { continuation.resume(with: now) }
      }
    } onCancel: {
      let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
        guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
        return state.waiting.remove(at: index).continuation
      }
      cancelled?.resume(throwing: CancellationError())
    }
  }

  /// Hands the place to the first waiting call, or frees it.
  private func leave() {
    let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
      guard !state.waiting.isEmpty else {
        state.running -= 1
        return nil
      }
      return state.waiting.removeFirst().continuation
    }
    next?.resume()
  }
}

import Synchronization

/// Signalled once when a server loop's thread has closed its connections and ended.
final class LoopExit: Sendable {
  private struct State {
    var finished = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Mutex(State())

  func finish() {
    let waiters = state.withLock { state in
      state.finished = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let finished = state.withLock { state in
        if !state.finished { state.waiters.append(continuation) }
        return state.finished
      }
      if finished { continuation.resume() }
    }
  }
}

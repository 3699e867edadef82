import Synchronization

/// Something that happens once, which tasks can wait for: `fire` sets its value (the first call
/// wins); every waiter, and every later one, gets that value. A waiter cancelled first gets nil.
final class OneShot<Value: Sendable>: Sendable {
  private struct State {
    var value: Value?
    var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
    var nextWaiter = 0
  }

  private let state = Mutex(State())

  /// The value, once fired.
  var value: Value? { state.withLock { $0.value } }

  /// Sets the value and wakes the waiters; false (nothing changed) when it was fired before.
  @discardableResult
  func fire(_ value: Value) -> Bool {
    let woken: [CheckedContinuation<Value?, Never>]? = state.withLock { state in
      guard state.value == nil else { return nil }
      state.value = value
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    guard let woken else { return false }
    for waiter in woken { waiter.resume(returning: value) }
    return true
  }

  /// The value, once fired; nil when the waiting task is cancelled first.
  func wait() async -> Value? {
    let id = state.withLock { state in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
        let now: Value?? = state.withLock { state in
          if let value = state.value { return .some(value) }
          if Task.isCancelled { return .some(nil) }
          state.waiters[id] = continuation
          return .none
        }
        if let now { continuation.resume(returning: now) }
      }
    } onCancel: {
      let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
      waiter?.resume(returning: nil)
    }
  }
}

import Synchronization

/// Whether the worker loop is draining the inbox, for `/readyz`: it has read the inbox, and its
/// last read of storage did not fail. A loop whose every slot is busy with items in flight is
/// draining too (it reads again as soon as one finishes).
final class InboxDrain: Sendable {
  private struct State {
    var readOnce = false
    var failure: String?
  }

  private let state = Mutex(State())

  /// The loop read storage (the inbox, the due checks).
  func read() {
    state.withLock {
      $0.readOnce = true
      $0.failure = nil
    }
  }

  /// The loop could not read storage: `error`, shortened.
  func failed(_ error: any Error) {
    let text = String(String(describing: error).prefix(200))
    state.withLock { $0.failure = text }
  }

  /// Why the inbox is not being drained; nil when it is.
  var notDrainingReason: String? {
    state.withLock { state in
      if let failure = state.failure { return "the worker loop cannot read the inbox: \(failure)" }
      return state.readOnce ? nil : "the worker loop has not read the inbox yet"
    }
  }
}

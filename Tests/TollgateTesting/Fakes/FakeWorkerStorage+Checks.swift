import Synchronization
import TollgateWorker

/// The fake's claims of scheduled checks, and the applies a test holds on purpose.
package struct FakeCheckBook {
  /// The live (or expired, not yet replaced) claim of each chain's check, by chain key; none once
  /// an `apply` or a postponement ended it.
  package var tokens: [String: Int64] = [:]
  /// The last token a claim handed out: every claim takes the next.
  package var lastToken: Int64 = 0
  /// Held applies by purchase id (`holdNextApply`).
  package var holds: [String: ApplyHold] = [:]
}

extension FakeWorkerStorage {
  /// Holds the next `apply` of chain `purchaseId` before it checks or writes anything, until the
  /// hold is released: a worker paused between its read and its write (a slow transaction, a
  /// stalled VM), so that another worker's write of the chain lands first.
  package func holdNextApply(purchaseId: String) -> ApplyHold {
    let hold = ApplyHold()
    checkBook.holds[purchaseId] = hold
    return hold
  }
}

/// One held `apply` (`FakeWorkerStorage.holdNextApply`): the test waits for it to arrive, lets
/// other work happen, then releases it.
package final class ApplyHold: Sendable {
  private struct State {
    var arrived = false
    var released = false
    var nextWaiter = 0
    var arrivalWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var gaveUp: Set<Int> = []
    var releaseWaiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Mutex(State())

  /// Called by the held apply: tells the waiters it arrived, then waits for `release`.
  package func arrive() async {
    let waiters = state.withLock { state in
      state.arrived = true
      defer { state.arrivalWaiters = [:] }
      return Array(state.arrivalWaiters.values)
    }
    for waiter in waiters { waiter.resume() }
    await withCheckedContinuation { continuation in
      let released = state.withLock { state in
        if !state.released { state.releaseWaiters.append(continuation) }
        return state.released
      }
      if released { continuation.resume() }
    }
  }

  /// True once the held apply arrived; false when it has not within `timeout` (the code under
  /// test never made that write), so a broken implementation fails the test instead of hanging it.
  package func arrival(timeout: Duration = .seconds(10)) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        await self.waitForArrival()
        return !Task.isCancelled
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
  }

  private func waitForArrival() async {
    let id = state.withLock { state in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let now = state.withLock { state in
          let now = state.arrived || state.gaveUp.contains(id)
          if !now { state.arrivalWaiters[id] = continuation }
          return now
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        state.gaveUp.insert(id)
        return state.arrivalWaiters.removeValue(forKey: id)
      }
      waiter?.resume()
    }
  }

  /// Lets the held apply go on.
  package func release() {
    let waiters = state.withLock { state in
      state.released = true
      defer { state.releaseWaiters = [] }
      return state.releaseWaiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

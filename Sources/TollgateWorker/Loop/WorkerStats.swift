import Synchronization

/// What the worker has been through, for `/health`: failures stay visible even though they never
/// change anyone's entitlements.
final class WorkerStats: Sendable {
  struct Snapshot: Sendable {
    var verified = 0
    var rejected = 0
    var storeFailures = 0
    var lastStoreFailureAtMs: Int64?
    var lastStoreError: String?
  }

  private let state = Mutex(Snapshot())

  var snapshot: Snapshot { state.withLock { $0 } }

  func verified() { state.withLock { $0.verified += 1 } }
  func rejected() { state.withLock { $0.rejected += 1 } }

  func storeFailure(_ error: String, atMs: Int64) {
    state.withLock {
      $0.storeFailures += 1
      $0.lastStoreFailureAtMs = atMs
      $0.lastStoreError = error
    }
  }

  var json: [String: Any] {
    let s = snapshot
    var object: [String: Any] = ["verified": s.verified, "rejected": s.rejected, "storeFailures": s.storeFailures]
    if let at = s.lastStoreFailureAtMs { object["lastStoreFailureAtMs"] = at }
    if let error = s.lastStoreError { object["lastStoreError"] = error }
    return object
  }
}

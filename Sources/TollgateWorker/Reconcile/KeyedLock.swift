/// Serialises work per key (a purchase chain) within one worker process, so two verifications of
/// one chain in this process rarely interleave their read of the store and their write. An
/// optimisation only (fewer conflicts, fewer store calls wasted): correctness never rests on it,
/// since other workers do not share it. What keeps an older read from overwriting a newer write
/// is storage's conditional apply (`SubscriptionChange.expectedVersion`, `ChainRefresher`).
actor KeyedLock {
  private var held: Set<String> = []
  private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

  func lock(_ key: String) async {
    if !held.contains(key) {
      held.insert(key)
      return
    }
    await withCheckedContinuation { waiters[key, default: []].append($0) }
  }

  func unlock(_ key: String) {
    if var queue = waiters[key], !queue.isEmpty {
      let next = queue.removeFirst()
      waiters[key] = queue.isEmpty ? nil : queue
      next.resume()  // the key stays held, handed over
    } else {
      held.remove(key)
    }
  }
}

extension KeyedLock {
  func withLock<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async throws -> T {
    await lock(key)
    do {
      let value = try await body()
      unlock(key)
      return value
    } catch {
      unlock(key)
      throw error
    }
  }
}

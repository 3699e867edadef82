import Synchronization

/// The last successful answer the simulator gave for each request key (path and query), kept so
/// that the `stale` fault can replay it as a caching proxy would. Bounded: past `capacity` keys,
/// the oldest half is forgotten.
final class AnswerCache: Sendable {
  private struct State {
    var answers: [String: StoreAnswer] = [:]
    var order: [String] = []
  }

  private let state = Mutex(State())
  let capacity: Int

  init(capacity: Int = 4_096) { self.capacity = capacity }

  func remember(_ answer: StoreAnswer, for key: String) {
    state.withLock { state in
      if state.answers.updateValue(answer, forKey: key) == nil { state.order.append(key) }
      if state.order.count > capacity {
        let forgotten = state.order.prefix(state.order.count / 2)
        for old in forgotten { state.answers[old] = nil }
        state.order.removeFirst(forgotten.count)
      }
    }
  }

  func answer(for key: String) -> StoreAnswer? { state.withLock { $0.answers[key] } }

  func contains(_ key: String) -> Bool { state.withLock { $0.answers[key] != nil } }
}

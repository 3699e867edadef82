import TollgateCore
import TollgateRPC

extension EntitlementIndex {
  /// The hot path: IsSubscriber's answer for `userId` and `entitlement` (UTF-8 bytes) at `nowMs`,
  /// straight from the compact records (no strings built, no copies of the user's records).
  /// Picks as `bestEvaluation` does; an unknown user or entitlement is simply not active.
  func isSubscriberAnswer(userId: UnsafeRawBufferPointer, entitlement: UnsafeRawBufferPointer, nowMs: Int64) -> IsSubscriberAnswer {
    state.withLock { state in
      var answer = IsSubscriberAnswer()
      answer.evaluatedAtMs = nowMs
      guard let wanted = state.strings.number(of: entitlement) else { return answer }
      var best: IndexedRecord?
      state.forEach(of: userId) { record in
        guard record.entitlement == wanted else { return }
        if let current = best, !record.isPreferred(over: current, at: nowMs, strings: state.strings) { return }
        best = record
      }
      guard let best else { return answer }
      let now = best.atQueryTime(nowMs)
      answer.active = now.active
      answer.expiresAtMs = best.accessEndsAtMs
      answer.state = .init(now.state)
      answer.willRenew = best.willRenew
      answer.store = .init(best.store)
      answer.productId = state.strings[best.productId]
      answer.environment = .init(best.environment)
      answer.verifiedAtMs = best.verifiedAtMs
      switch best.source {
      case .numbered(_, let number): answer.numericStoreSubscriptionId = number
      case .text(let source): answer.storeSubscriptionId = EntitlementRecord.storeSubscriptionId(fromSource: source)
      }
      return answer
    }
  }
}

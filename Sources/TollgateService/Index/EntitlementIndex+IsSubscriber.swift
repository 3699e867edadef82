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

  /// The same answer for ids given as strings (the message path, tests).
  func isSubscriberAnswer(userId: String, entitlement: String, nowMs: Int64) -> IsSubscriberAnswer {
    var userId = userId
    var entitlement = entitlement
    return userId.withUTF8 { userId in
      entitlement.withUTF8 { entitlement in
        isSubscriberAnswer(userId: UnsafeRawBufferPointer(userId), entitlement: UnsafeRawBufferPointer(entitlement), nowMs: nowMs)
      }
    }
  }

  /// Loads what looking up `userIds` will touch (their table entries, keys and first records),
  /// each step for all of them at once, so that their cache misses overlap. Answers do not
  /// change; a pipelined read of many requests is answered faster.
  func warm(userIds: UnsafeBufferPointer<UnsafeRawBufferPointer>) {
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: userIds.count) { hashes in
      withUnsafeTemporaryAllocation(of: Int32.self, capacity: userIds.count) { heads in
        state.withLock { state in
          for (position, userId) in userIds.enumerated() { hashes[position] = state.heads.hash(userId) }
          var sink = UInt64(state.heads.touchEntries(hashes: UnsafeBufferPointer(hashes)))
          sink &+= UInt64(state.heads.touchKeys(hashes: UnsafeBufferPointer(hashes), values: heads))
          state.slots.withUnsafeBufferPointer { slots in
            for head in heads where head >= 0 && Int(head) < slots.count { sink &+= UInt64(slots[Int(head)].entitlement) }
          }
          state.warmed = sink
        }
      }
    }
  }
}

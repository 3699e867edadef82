import NIOCore
import TollgateCore
import TollgateRPC

extension EntitlementIndex {
  /// The hot path: answers `calls` (valid requests) at `nowMs`, in order, appending a success
  /// frame for each to `output`, under one lock. Every user id is hashed and its table entry,
  /// key and first record loaded before any call is answered, so that the cache misses of a
  /// read's lookups overlap instead of queueing one after another (and, for a single call, its
  /// key's and its record's, which both follow from the entry).
  func answerIsSubscriber(_ calls: UnsafeBufferPointer<IsSubscriberCall>, nowMs: Int64, into output: inout ByteBuffer) {
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: calls.count) { hashes in
      state.withLock { state in
        for (position, call) in calls.enumerated() { hashes[position] = state.heads.hash(call.fields.userId) }
        state.warm(hashes: UnsafeBufferPointer(hashes))
        var entitlements = EntitlementNumbers()
        for (position, call) in calls.enumerated() {
          let head = state.heads.find(call.fields.userId, hash: hashes[position]) ?? -1
          let wanted = entitlements.number(of: call.fields.entitlement, in: state.strings)
          output.writeIsSubscriberResponseFrame(
            answering: call, with: state.isSubscriberAnswer(head: head, entitlement: wanted, nowMs: nowMs))
        }
      }
    }
  }

  /// The same answer for ids given as strings (the message path, tests).
  func isSubscriberAnswer(userId: String, entitlement: String, nowMs: Int64) -> IsSubscriberAnswer {
    state.withLock { state in
      state.isSubscriberAnswer(
        head: state.heads.find(userId) ?? -1, entitlement: state.strings.number(of: entitlement), nowMs: nowMs)
    }
  }
}

extension EntitlementIndex.State {
  /// IsSubscriber's answer from the records chained at `head` (-1: an unknown user) for the
  /// entitlement numbered `entitlement` (nil: never interned, so nobody has it), straight from
  /// the compact records. Picks as `bestEvaluation` does.
  func isSubscriberAnswer(head: Int32, entitlement: UInt32?, nowMs: Int64) -> IsSubscriberAnswer {
    var answer = IsSubscriberAnswer()
    answer.evaluatedAtMs = nowMs
    guard let entitlement else { return answer }
    var best = -1
    forEachSlot(from: head) { slot in
      if slots[slot].entitlement == entitlement,
        best < 0 || slots[slot].isPreferred(over: slots[best], at: nowMs, strings: strings)
      {
        best = slot
      }
    }
    guard best >= 0 else { return answer }
    let record = slots[best]
    let now = record.atQueryTime(nowMs)
    answer.active = now.active
    answer.expiresAtMs = record.accessEndsAtMs
    answer.state = .init(now.state)
    answer.willRenew = record.willRenew
    answer.store = .init(record.store)
    answer.productId = strings[record.productId]
    answer.environment = .init(record.environment)
    answer.verifiedAtMs = record.verifiedAtMs
    switch record.source {
    case .numbered(_, let number): answer.numericStoreSubscriptionId = number
    case .text(let source): answer.storeSubscriptionId = EntitlementRecord.storeSubscriptionId(fromSource: source)
    }
    return answer
  }

  /// Loads what looking up the users of `hashes` will touch (their table entries, keys and first
  /// records), each step for all of them at once. Changes nothing.
  mutating func warm(hashes: UnsafeBufferPointer<UInt64>) {
    withUnsafeTemporaryAllocation(of: Int32.self, capacity: hashes.count) { heads in
      var sink = UInt64(self.heads.touchEntries(hashes: hashes))
      sink &+= UInt64(self.heads.touchKeys(hashes: hashes, values: heads))
      slots.withUnsafeBufferPointer { slots in
        // Both ends of the record: an array's elements do not start on a cache line, so a
        // 64-byte record spans two.
        for head in heads where head >= 0 && Int(head) < slots.count {
          sink &+= UInt64(slots[Int(head)].entitlement) &+ UInt64(UInt32(bitPattern: slots[Int(head)].next))
        }
      }
      warmed = sink
    }
  }
}

/// The entitlement numbers of a batch's calls. The calls of one read nearly always ask about
/// the same entitlement: comparing its bytes with the previous call's is cheaper than a lookup.
private struct EntitlementNumbers {
  /// The previous call's entitlement and its number (nil: never interned).
  private var last: (bytes: UnsafeRawBufferPointer, number: UInt32?)?

  mutating func number(of bytes: UnsafeRawBufferPointer, in strings: InternTable) -> UInt32? {
    if let last, ByteKeyTable.equal(bytes, last.bytes) { return last.number }
    let number = strings.number(of: bytes)
    last = (bytes, number)
    return number
  }
}

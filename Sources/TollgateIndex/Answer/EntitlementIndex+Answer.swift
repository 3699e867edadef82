import TollgateCore

extension EntitlementIndex {
  /// Answers `queries` at `nowMs`, in order, under one lock, handing each answer to `each` with
  /// its position as soon as it is known (the server encodes it there, while its data is still in
  /// the cache; nothing is allocated). The one implementation of the rule; every other way of
  /// asking goes through it. `each` runs under the index's lock: it must not call the index.
  ///
  /// Every user id is hashed and its table entry, key and first record loaded before any query
  /// is answered, so that the cache misses of a batch's lookups overlap instead of queueing one
  /// after another (and, for a single query, its key's and its record's, which both follow from
  /// the entry).
  public func answer(
    _ queries: UnsafeBufferPointer<EntitlementQuery>, nowMs: Int64, _ each: (Int, consuming EntitlementAnswer) -> Void
  ) {
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: queries.count) { hashes in
      state.withLock { state in
        for (position, query) in queries.enumerated() { hashes[position] = state.heads.hash(query.userId) }
        state.warm(hashes: UnsafeBufferPointer(hashes))
        var entitlements = EntitlementNumbers()
        for (position, query) in queries.enumerated() {
          let head = state.heads.find(query.userId, hash: hashes[position]) ?? -1
          let wanted = entitlements.number(of: query.entitlement, in: state.strings)
          each(position, state.answer(head: head, entitlement: wanted, nowMs: nowMs))
        }
      }
    }
  }

  /// Loads what answering queries for `userIds` will touch (table entries, keys, first records),
  /// all at once, and answers nothing: for a server about to answer several connections' reads
  /// one after another, so that their cache misses overlap. Changes nothing an answer can see.
  public func warm(userIds: UnsafeBufferPointer<UnsafeRawBufferPointer>) {
    guard !userIds.isEmpty else { return }
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: userIds.count) { hashes in
      state.withLock { state in
        for (position, userId) in userIds.enumerated() { hashes[position] = state.heads.hash(userId) }
        state.warm(hashes: UnsafeBufferPointer(hashes))
      }
    }
  }

  /// One query given as strings (the message path, tests): the same rule, through `answer`.
  public func answer(userId: String, entitlement: String, nowMs: Int64) -> EntitlementAnswer {
    var userId = userId
    var entitlement = entitlement
    return userId.withUTF8 { user in
      entitlement.withUTF8 { wanted in
        var query = EntitlementQuery(userId: UnsafeRawBufferPointer(user), entitlement: UnsafeRawBufferPointer(wanted))
        var found = EntitlementAnswer()
        withUnsafePointer(to: &query) {
          answer(UnsafeBufferPointer(start: $0, count: 1), nowMs: nowMs) { found = $1 }
        }
        return found
      }
    }
  }
}

extension EntitlementIndex.State {
  /// The answer from the records chained at `head` (-1: an unknown user) for the entitlement
  /// numbered `entitlement` (nil: never interned, so nobody has it), straight from the compact
  /// records. Picks as `bestEvaluation` does.
  func answer(head: Int32, entitlement: UInt32?, nowMs: Int64) -> EntitlementAnswer {
    var answer = EntitlementAnswer()
    answer.evaluatedAtMs = nowMs
    let best = preferredSlot(head: head, entitlement: entitlement, nowMs: nowMs)
    guard best >= 0 else { return answer }
    let record = slots[best]
    let now = record.atQueryTime(nowMs)
    answer.active = now.active
    answer.expiresAtMs = record.accessEndsAtMs
    answer.state = now.state
    answer.accessLevel = accessLevels[now.state]
    answer.willRenew = record.willRenew
    answer.store = record.store
    answer.productId = strings[record.productId]
    answer.environment = record.environment
    answer.verifiedAtMs = record.verifiedAtMs
    switch record.source {
    case .numbered(_, let number): answer.numericStoreSubscriptionId = number
    case .text(let source): answer.storeSubscriptionId = EntitlementRecord.storeSubscriptionId(fromSource: source)
    }
    return answer
  }

  /// The slot of the record that answers for the entitlement numbered `entitlement` among the
  /// records chained at `head`, by Core's preference (`isPreferred`); -1 for none. The one choice
  /// every answer (`answer`, `answerViews`) makes.
  @inline(__always)
  func preferredSlot(head: Int32, entitlement: UInt32?, nowMs: Int64) -> Int {
    guard let entitlement else { return -1 }
    var best = -1
    forEachSlot(from: head) { slot in
      if slots[slot].entitlement == entitlement,
        best < 0 || slots[slot].isPreferred(over: slots[best], at: nowMs, strings: strings)
      {
        best = slot
      }
    }
    return best
  }

  /// Loads what looking up the users of `hashes` will touch (their table entries, then their keys
  /// and first records together), each step for all of them at once. Changes nothing.
  mutating func warm(hashes: UnsafeBufferPointer<UInt64>) {
    var sink = UInt64(heads.touchEntries(hashes: hashes))
    sink &+= slots.withUnsafeBufferPointer { slots in
      heads.touchKeys(hashes: hashes) { head in
        // Both ends of the record: an array's elements do not start on a cache line, so a
        // 64-byte record spans two.
        guard head >= 0, Int(head) < slots.count else { return 0 }
        return UInt64(slots[Int(head)].entitlement) &+ UInt64(UInt32(bitPattern: slots[Int(head)].next))
      }
    }
    warmed = sink
  }
}

/// The entitlement numbers of a batch's queries. The queries of one read nearly always ask about
/// the same entitlement: comparing its bytes with the previous query's is cheaper than a lookup.
struct EntitlementNumbers {
  /// The previous query's entitlement and its number (nil: never interned).
  private var last: (bytes: UnsafeRawBufferPointer, number: UInt32?)?

  mutating func number(of bytes: UnsafeRawBufferPointer, in strings: InternTable) -> UInt32? {
    if let last, ByteKeyTable.equal(bytes, last.bytes) { return last.number }
    let number = strings.number(of: bytes)
    last = (bytes, number)
    return number
  }
}

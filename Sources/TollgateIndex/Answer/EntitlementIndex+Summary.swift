import TollgateCore

extension EntitlementIndex {
  /// GetSubscription's answer for the user whose id is `userId`'s UTF-8 bytes, at `nowMs`, from
  /// the compact records: the one implementation of how a user's records become subscriptions
  /// and entitlement statuses, for the fast path (which encodes the view where it is) and the
  /// message path (`summary`) alike. Calls `body` with it under the index's lock (`body` must
  /// not call the index) and returns true; false, without calling `body`, for a user with no
  /// records.
  public func summarize(userId: UnsafeRawBufferPointer, nowMs: Int64, _ body: (UserSummaryView) -> Void) -> Bool {
    state.withLock { state in
      guard let head = state.heads.find(userId) else { return false }
      state.summarize(head: head, nowMs: nowMs, body)
      return true
    }
  }

  /// The same for a user id given as a string, copied out; nil for a user with no records.
  public func summary(userId: String, nowMs: Int64) -> UserSummaryAnswer? {
    var userId = userId
    return userId.withUTF8 { bytes in
      var summary: UserSummaryAnswer?
      _ = summarize(userId: UnsafeRawBufferPointer(bytes), nowMs: nowMs) { summary = UserSummaryAnswer($0) }
      return summary
    }
  }
}

extension EntitlementIndex.State {
  /// The summary of the records chained at `head` (at least one), handed to `body`.
  ///
  /// Subscriptions: the records grouped by source (equal bytes), in the byte order of the
  /// sources; each group answers with its preferred record by `EntitlementRank` (its records
  /// share the source, so a tie keeps the first in the chain) and lists every record's
  /// entitlement. Entitlements: one status per entitlement, in the byte order of the names, each
  /// the answer IsSubscriber gives for it (`answer(head:entitlement:nowMs:)`).
  ///
  /// Mutating only so that the closures here borrow the state (the lock's) instead of copying it,
  /// and every array in it with a reference counted; it changes nothing.
  mutating func summarize(head: Int32, nowMs: Int64, _ body: (UserSummaryView) -> Void) {
    var count = 0
    forEachSlot(from: head) { _ in count += 1 }
    withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * count) { scratch in
      // The user's slots in chain order, then positions in it (sorted as needed).
      let chain = UnsafeMutableBufferPointer(rebasing: scratch[0..<count])
      let order = UnsafeMutableBufferPointer(rebasing: scratch[count..<2 * count])
      var filled = 0
      forEachSlot(from: head) { slot in
        chain[filled] = Int32(slot)
        filled += 1
      }
      withUnsafeTemporaryAllocation(of: SubscriptionAnswer.self, capacity: count) { subscriptions in
        withUnsafeTemporaryAllocation(of: String.self, capacity: count) { names in
          withUnsafeTemporaryAllocation(of: EntitlementStatusAnswer.self, capacity: count) { statuses in
            let subscriptionCount = subscriptionsBySource(
              chain: UnsafeBufferPointer(chain), order: order, nowMs: nowMs, into: subscriptions, names: names)
            let statusCount = statusesByEntitlement(
              head: head, chain: UnsafeBufferPointer(chain), order: order, nowMs: nowMs, into: statuses)
            body(
              UserSummaryView(
                evaluatedAtMs: nowMs,
                subscriptions: UnsafeBufferPointer(rebasing: subscriptions[0..<subscriptionCount]),
                entitlementNames: UnsafeBufferPointer(names),
                entitlements: UnsafeBufferPointer(rebasing: statuses[0..<statusCount])))
            subscriptions.baseAddress!.deinitialize(count: subscriptionCount)
            names.baseAddress!.deinitialize(count: count)
            statuses.baseAddress!.deinitialize(count: statusCount)
          }
        }
      }
    }
  }

  /// Fills `subscriptions` (one per source) and all of `names`; returns how many subscriptions.
  private mutating func subscriptionsBySource(
    chain: UnsafeBufferPointer<Int32>, order: UnsafeMutableBufferPointer<Int32>, nowMs: Int64,
    into subscriptions: UnsafeMutableBufferPointer<SubscriptionAnswer>, names: UnsafeMutableBufferPointer<String>
  ) -> Int {
    func source(_ position: Int32) -> IndexedSource { slots[Int(chain[Int(position)])].source }
    sortPositions(order) { compareSources(source($0), source($1)) }
    var subscriptionCount = 0
    var start = 0
    while start < order.count {
      var end = start + 1
      while end < order.count, compareSources(source(order[start]), source(order[end])) == 0 { end += 1 }
      // Within the group, positions are in chain order: a tie keeps the first.
      var best = Int(chain[Int(order[start])])
      for position in order[start + 1..<end] {
        let slot = Int(chain[Int(position)])
        if rank(slot, at: nowMs).isPreferred(over: rank(best, at: nowMs)) == true { best = slot }
      }
      // The group's entitlements, by name.
      var group = UnsafeMutableBufferPointer(rebasing: order[start..<end])
      if group.count > 1 {
        group.sort { compareNames(slots[Int(chain[Int($0)])].entitlement, slots[Int(chain[Int($1)])].entitlement) < 0 }
      }
      for (offset, position) in group.enumerated() {
        names.initializeElement(at: start + offset, to: strings[slots[Int(chain[Int(position)])].entitlement])
      }
      subscriptions.initializeElement(
        at: subscriptionCount, to: subscription(slot: best, nowMs: nowMs, entitlements: start..<end))
      subscriptionCount += 1
      start = end
    }
    return subscriptionCount
  }

  /// Fills `statuses` (one per entitlement); returns how many.
  private mutating func statusesByEntitlement(
    head: Int32, chain: UnsafeBufferPointer<Int32>, order: UnsafeMutableBufferPointer<Int32>, nowMs: Int64,
    into statuses: UnsafeMutableBufferPointer<EntitlementStatusAnswer>
  ) -> Int {
    func entitlement(_ position: Int32) -> UInt32 { slots[Int(chain[Int(position)])].entitlement }
    sortPositions(order) { compareNames(entitlement($0), entitlement($1)) }
    var statusCount = 0
    var start = 0
    while start < order.count {
      let number = entitlement(order[start])
      var end = start + 1
      while end < order.count, entitlement(order[end]) == number { end += 1 }
      statuses.initializeElement(
        at: statusCount,
        to: EntitlementStatusAnswer(
          entitlement: strings[number], answer: answer(head: head, entitlement: number, nowMs: nowMs)))
      statusCount += 1
      start = end
    }
    return statusCount
  }

  /// The subscription answered by the record in `slot`.
  private func subscription(slot: Int, nowMs: Int64, entitlements: Range<Int>) -> SubscriptionAnswer {
    let record = slots[slot]
    let now = record.atQueryTime(nowMs)
    var storeSubscriptionId = ""
    var numericStoreSubscriptionId: UInt64?
    switch record.source {
    case .numbered(_, let number): numericStoreSubscriptionId = number
    case .text(let source): storeSubscriptionId = EntitlementRecord.storeSubscriptionId(fromSource: source)
    }
    return SubscriptionAnswer(
      store: record.store, storeSubscriptionId: storeSubscriptionId,
      numericStoreSubscriptionId: numericStoreSubscriptionId,
      productId: strings[record.productId], state: now.state, active: now.active, expiresAtMs: record.accessEndsAtMs,
      willRenew: record.willRenew, environment: record.environment, verifiedAtMs: record.verifiedAtMs,
      entitlements: entitlements,
      // The rule behind the stored state, while that is the state answered.
      reason: now.state == record.state && record.reason != 0 ? IndexedRecord.reasons[Int(record.reason) - 1] : nil,
      replaces: replaces.isEmpty ? [] : replaces[Int32(slot)] ?? [])
  }

  /// How the record in `slot` ranks at `nowMs` (Core's `EntitlementRank`).
  private func rank(_ slot: Int, at nowMs: Int64) -> EntitlementRank {
    let record = slots[slot]
    return EntitlementRank(
      active: record.atQueryTime(nowMs).active, accessEndsAtMs: record.accessEndsAtMs, verifiedAtMs: record.verifiedAtMs
    )
  }

  /// Sorts `positions` (filled here with 0..<count) by `compare`, equal ones in chain order.
  private func sortPositions(_ positions: UnsafeMutableBufferPointer<Int32>, by compare: (Int32, Int32) -> Int) {
    var positions = positions
    for position in positions.indices { positions[position] = Int32(position) }
    guard positions.count > 1 else { return }
    positions.sort { a, b in
      let order = compare(a, b)
      return order != 0 ? order < 0 : a < b
    }
  }

  /// The byte order of two interned names' UTF-8 (-1, 0, 1).
  func compareNames(_ a: UInt32, _ b: UInt32) -> Int {
    if a == b { return 0 }
    return ByteOrder.compare(strings[a], strings[b])
  }

  /// The byte order of two sources' UTF-8 as text (`app_store:…`), without building the text of
  /// a numbered one (-1, 0, 1).
  func compareSources(_ a: IndexedSource, _ b: IndexedSource) -> Int {
    if case .numbered(let prefix, let left) = a, case .numbered(prefix, let right) = b {
      return ByteOrder.compareDecimalText(left, right)
    }
    return withBytes(of: a) { a0, a1 in withBytes(of: b) { b0, b1 in ByteOrder.compare(a0, a1, b0, b1) } }
  }

  /// Calls `body` with `source`'s UTF-8 in two parts (a numbered source's prefix and digits).
  private func withBytes<Result>(
    of source: IndexedSource, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Result
  ) -> Result {
    switch source {
    case .numbered(let prefix, let number):
      ByteOrder.withUTF8(of: strings[prefix]) { prefix in ByteOrder.withDecimalText(of: number) { body(prefix, $0) } }
    case .text(let text):
      ByteOrder.withUTF8(of: text) { body($0, UnsafeRawBufferPointer(start: nil, count: 0)) }
    }
  }
}

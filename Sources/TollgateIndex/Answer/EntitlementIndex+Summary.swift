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

/// What one summary works in, all of it the call's own: the user's slots in chain order,
/// positions in the chain to sort, and by position a text source's UTF-8 and the store's id of
/// its subscription (copied once per call; empty for a numbered source).
private struct SummaryScratch {
  let chain: UnsafeMutableBufferPointer<Int32>
  let order: UnsafeMutableBufferPointer<Int32>
  let sources: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>
  let ids: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>

  /// The chain position of `slot` (a user has a handful of records).
  func position(of slot: Int) -> Int { chain.firstIndex(of: Int32(slot)) ?? 0 }
}

extension EntitlementIndex.State {
  /// The summary of the records chained at `head` (at least one), handed to `body`.
  ///
  /// Subscriptions: the records grouped by source (equal bytes), in the byte order of the
  /// sources; each group answers with its preferred record by `EntitlementRank` (its records
  /// share the source, so a tie keeps the first in the chain) and lists every record's
  /// entitlement. Entitlements: one status per entitlement, in the byte order of the names, each
  /// the answer IsSubscriber gives for it (`preferredSlot`, the view `withView` gives).
  ///
  /// Every text is a view of the index's interned bytes or of this call's copy of the text
  /// sources, so no `String` is counted but a text source's while it is copied.
  /// Mutating only so that the closures here borrow the state (the lock's) instead of copying it,
  /// and every array in it with a reference counted; it changes nothing.
  mutating func summarize(head: Int32, nowMs: Int64, _ body: (UserSummaryView) -> Void) {
    var count = 0
    var textBytes = 0
    forEachSlot(from: head) { slot in
      count += 1
      if case .text(let source) = slots[slot].source { textBytes += source.utf8.count }
    }
    withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * count) { positions in
      withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: 2 * count) { views in
        // Each text source, then its id (no longer than the source).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, 2 * textBytes)) { text in
          let scratch = SummaryScratch(
            chain: UnsafeMutableBufferPointer(rebasing: positions[0..<count]),
            order: UnsafeMutableBufferPointer(rebasing: positions[count..<2 * count]),
            sources: UnsafeMutableBufferPointer(rebasing: views[0..<count]),
            ids: UnsafeMutableBufferPointer(rebasing: views[count..<2 * count]))
          var filled = 0
          forEachSlot(from: head) { slot in
            scratch.chain[filled] = Int32(slot)
            filled += 1
          }
          copyTextSources(scratch, into: UnsafeMutableRawBufferPointer(text))
          strings.withBytes { strings in
            accessLevels.withBytes { levels in
              summarize(scratch, head: head, nowMs: nowMs, strings: strings, levels: levels, body)
            }
          }
        }
      }
    }
  }

  /// Copies each text source's UTF-8 and its id into `text`, and points `scratch.sources` and
  /// `scratch.ids` at them.
  private func copyTextSources(_ scratch: SummaryScratch, into text: UnsafeMutableRawBufferPointer) {
    var offset = 0
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
      let copied = UnsafeMutableRawBufferPointer(rebasing: text[offset..<offset + bytes.count])
      copied.copyMemory(from: bytes)
      offset += bytes.count
      return UnsafeRawBufferPointer(copied)
    }
    for position in scratch.chain.indices {
      guard case .text(let source) = slots[Int(scratch.chain[position])].source else {
        scratch.sources[position] = UnsafeRawBufferPointer(start: nil, count: 0)
        scratch.ids[position] = UnsafeRawBufferPointer(start: nil, count: 0)
        continue
      }
      var utf8 = source
      scratch.sources[position] = utf8.withUTF8 { copy(UnsafeRawBufferPointer($0)) }
      Self.withStoreSubscriptionId(of: source) { scratch.ids[position] = copy($0) }
    }
  }

  private mutating func summarize(
    _ scratch: SummaryScratch, head: Int32, nowMs: Int64, strings: InternedBytes, levels: InternedBytes,
    _ body: (UserSummaryView) -> Void
  ) {
    let count = scratch.chain.count
    withUnsafeTemporaryAllocation(of: SubscriptionView.self, capacity: count) { subscriptions in
      withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: count) { names in
        withUnsafeTemporaryAllocation(of: EntitlementStatusView.self, capacity: count) { statuses in
          let subscriptionCount = subscriptionsBySource(
            scratch, nowMs: nowMs, strings: strings, into: subscriptions, names: names)
          let statusCount = statusesByEntitlement(
            scratch, head: head, nowMs: nowMs, strings: strings, levels: levels, into: statuses)
          body(
            UserSummaryView(
              evaluatedAtMs: nowMs,
              subscriptions: UnsafeBufferPointer(rebasing: subscriptions[0..<subscriptionCount]),
              entitlementNames: UnsafeBufferPointer(names),
              entitlements: UnsafeBufferPointer(rebasing: statuses[0..<statusCount])))
          subscriptions.baseAddress!.deinitialize(count: subscriptionCount)
          statuses.baseAddress!.deinitialize(count: statusCount)
        }
      }
    }
  }

  /// Fills `subscriptions` (one per source) and all of `names`; returns how many subscriptions.
  private mutating func subscriptionsBySource(
    _ scratch: SummaryScratch, nowMs: Int64, strings: InternedBytes,
    into subscriptions: UnsafeMutableBufferPointer<SubscriptionView>,
    names: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>
  ) -> Int {
    let chain = scratch.chain
    let order = scratch.order
    func compare(_ a: Int32, _ b: Int32) -> Int { compareSources(Int(a), Int(b), scratch, strings: strings) }
    sortPositions(order, by: compare)
    var subscriptionCount = 0
    var start = 0
    while start < order.count {
      var end = start + 1
      while end < order.count, compare(order[start], order[end]) == 0 { end += 1 }
      // Within the group, positions are in chain order: a tie keeps the first.
      var best = Int(order[start])
      for position in order[start + 1..<end] {
        let slot = Int(chain[Int(position)])
        if rank(slot, at: nowMs).isPreferred(over: rank(Int(chain[best]), at: nowMs)) == true { best = Int(position) }
      }
      // The group's entitlements, by name.
      var group = UnsafeMutableBufferPointer(rebasing: order[start..<end])
      func entitlement(_ position: Int32) -> UInt32 { slots[Int(chain[Int(position)])].entitlement }
      if group.count > 1 { group.sort { ByteOrder.compare(strings[entitlement($0)], strings[entitlement($1)]) < 0 } }
      for (offset, position) in group.enumerated() {
        names.initializeElement(at: start + offset, to: strings[entitlement(position)])
      }
      subscriptions.initializeElement(
        at: subscriptionCount,
        to: subscription(position: best, scratch, nowMs: nowMs, strings: strings, entitlements: start..<end))
      subscriptionCount += 1
      start = end
    }
    return subscriptionCount
  }

  /// Fills `statuses` (one per entitlement); returns how many.
  private mutating func statusesByEntitlement(
    _ scratch: SummaryScratch, head: Int32, nowMs: Int64, strings: InternedBytes, levels: InternedBytes,
    into statuses: UnsafeMutableBufferPointer<EntitlementStatusView>
  ) -> Int {
    let chain = scratch.chain
    let order = scratch.order
    func entitlement(_ position: Int32) -> UInt32 { slots[Int(chain[Int(position)])].entitlement }
    sortPositions(order) { a, b in
      let (left, right) = (entitlement(a), entitlement(b))
      return left == right ? 0 : ByteOrder.compare(strings[left], strings[right])
    }
    var statusCount = 0
    var start = 0
    while start < order.count {
      let number = entitlement(order[start])
      var end = start + 1
      while end < order.count, entitlement(order[end]) == number { end += 1 }
      var answer = EntitlementAnswerView()
      answer.evaluatedAtMs = nowMs
      let best = preferredSlot(head: head, entitlement: number, nowMs: nowMs)
      if best >= 0 {
        let record = slots[best]
        answer = Self.view(of: record, nowMs: nowMs, strings: strings, levels: levels)
        if case .numbered(_, let id) = record.source {
          answer.numericStoreSubscriptionId = id
        } else {
          answer.storeSubscriptionId = scratch.ids[scratch.position(of: best)]
        }
      }
      statuses.initializeElement(
        at: statusCount, to: EntitlementStatusView(entitlement: strings[number], answer: answer))
      statusCount += 1
      start = end
    }
    return statusCount
  }

  /// The subscription answered by the record at chain position `position`.
  private func subscription(
    position: Int, _ scratch: SummaryScratch, nowMs: Int64, strings: InternedBytes, entitlements: Range<Int>
  ) -> SubscriptionView {
    let slot = Int(scratch.chain[position])
    let now = slots[slot].atQueryTime(nowMs)
    var numericStoreSubscriptionId: UInt64?
    if case .numbered(_, let number) = slots[slot].source { numericStoreSubscriptionId = number }
    let state = slots[slot].state
    let reason = slots[slot].reason
    return SubscriptionView(
      store: slots[slot].store, storeSubscriptionId: scratch.ids[position],
      numericStoreSubscriptionId: numericStoreSubscriptionId, productId: strings[slots[slot].productId],
      state: now.state, active: now.active, expiresAtMs: slots[slot].accessEndsAtMs, willRenew: slots[slot].willRenew,
      environment: slots[slot].environment, verifiedAtMs: slots[slot].verifiedAtMs, entitlements: entitlements,
      // The rule behind the stored state, while that is the state answered.
      reason: now.state == state && reason != 0 ? IndexedRecord.reasons[Int(reason) - 1] : nil,
      replaces: replaces.isEmpty ? [] : replaces[Int32(slot)] ?? [])
  }

  /// How the record in `slot` ranks at `nowMs` (Core's `EntitlementRank`).
  private func rank(_ slot: Int, at nowMs: Int64) -> EntitlementRank {
    EntitlementRank(
      active: slots[slot].atQueryTime(nowMs).active, accessEndsAtMs: slots[slot].accessEndsAtMs,
      verifiedAtMs: slots[slot].verifiedAtMs)
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

  /// The byte order (-1, 0, 1) of the sources at two chain positions as text (`app_store:…`),
  /// without writing a numbered one's digits when both are numbers under one prefix.
  private func compareSources(_ a: Int, _ b: Int, _ scratch: SummaryScratch, strings: InternedBytes) -> Int {
    let (left, right) = (Int(scratch.chain[a]), Int(scratch.chain[b]))
    if case .numbered(let prefix, let x) = slots[left].source, case .numbered(prefix, let y) = slots[right].source {
      return ByteOrder.compareDecimalText(x, y)
    }
    return withBytes(ofSourceAt: a, scratch, strings: strings) { a0, a1 in
      withBytes(ofSourceAt: b, scratch, strings: strings) { b0, b1 in ByteOrder.compare(a0, a1, b0, b1) }
    }
  }

  /// Calls `body` with the UTF-8 of the source at chain position `position` in two parts (a
  /// numbered source's prefix and digits; a text source and nothing).
  private func withBytes<Result>(
    ofSourceAt position: Int, _ scratch: SummaryScratch, strings: InternedBytes,
    _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Result
  ) -> Result {
    if case .numbered(let prefix, let number) = slots[Int(scratch.chain[position])].source {
      return ByteOrder.withDecimalText(of: number) { body(strings[prefix], $0) }
    }
    return body(scratch.sources[position], UnsafeRawBufferPointer(start: nil, count: 0))
  }
}

import TollgateCore

/// `EntitlementAnswer` as views of bytes the index owns: what the hot path encodes, with no
/// `String` copied, built or reference-counted for the interned strings (product, access level)
/// or a numbered source (an App Store id); a text source (a purchase token, a receipt id) costs
/// one reference count while it is read. Valid only during the `answerViews` call that hands it
/// out (the index's lock is held meanwhile).
public struct EntitlementAnswerView {
  public var active = false
  /// When access ends (0: no record).
  public var expiresAtMs: Int64 = 0
  public var state: SubscriptionState?
  public var willRenew = false
  public var store: Store?
  public var productId = UnsafeRawBufferPointer(start: nil, count: 0)
  public var environment: StoreEnvironment?
  public var verifiedAtMs: Int64 = 0
  public var evaluatedAtMs: Int64 = 0
  /// The store's id of the subscription when it is not a number (empty when it is, or when there
  /// is no record).
  public var storeSubscriptionId = UnsafeRawBufferPointer(start: nil, count: 0)
  /// The store's id when it is a decimal number (`EntitlementAnswer.numericStoreSubscriptionId`).
  public var numericStoreSubscriptionId: UInt64?
  /// The access level the state gives (empty when there is no record).
  public var accessLevel = UnsafeRawBufferPointer(start: nil, count: 0)

  public init() {}
}

extension EntitlementIndex {
  /// `answer(_:nowMs:_:)`, handing out views instead of values: the same lookups, the same
  /// choice of record (`State.preferredSlot`), the same fields, but the strings are the index's
  /// own bytes. `each` runs under the index's lock: it must not call the index, and the view's
  /// bytes must not outlive the call.
  public func answerViews(
    _ queries: UnsafeBufferPointer<EntitlementQuery>, nowMs: Int64, _ each: (Int, EntitlementAnswerView) -> Void
  ) {
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: queries.count) { hashes in
      state.withLock { state in
        for (position, query) in queries.enumerated() { hashes[position] = state.heads.hash(query.userId) }
        state.warm(hashes: UnsafeBufferPointer(hashes))
        state.answerViews(queries, hashes: UnsafeBufferPointer(hashes), nowMs: nowMs, each)
      }
    }
  }
}

extension EntitlementIndex.State {
  /// `answerViews`' loop, after the lookups were warmed. A method, so that its closures borrow the
  /// state instead of copying it (a copy would count a reference to each of its arrays).
  func answerViews(
    _ queries: UnsafeBufferPointer<EntitlementQuery>, hashes: UnsafeBufferPointer<UInt64>, nowMs: Int64,
    _ each: (Int, EntitlementAnswerView) -> Void
  ) {
    var entitlements = EntitlementNumbers()
    strings.withBytes { stringBytes in
      accessLevels.withBytes { levelBytes in
        for (position, query) in queries.enumerated() {
          let head = heads.find(query.userId, hash: hashes[position]) ?? -1
          let wanted = entitlements.number(of: query.entitlement, in: strings)
          let best = preferredSlot(head: head, entitlement: wanted, nowMs: nowMs)
          guard best >= 0 else {
            var none = EntitlementAnswerView()
            none.evaluatedAtMs = nowMs
            each(position, none)
            continue
          }
          withView(of: best, nowMs: nowMs, strings: stringBytes, levels: levelBytes) { each(position, $0) }
        }
      }
    }
  }
}

extension EntitlementIndex.State {
  /// Calls `body` with the view of the record in `slot` answered at `nowMs` (the fields
  /// `answer(head:entitlement:nowMs:)` fills, from the same record).
  @inline(__always)
  func withView(
    of slot: Int, nowMs: Int64, strings: InternedBytes, levels: InternedBytes, _ body: (EntitlementAnswerView) -> Void
  ) {
    let record = slots[slot]
    let now = record.atQueryTime(nowMs)
    var view = EntitlementAnswerView()
    view.active = now.active
    view.expiresAtMs = record.accessEndsAtMs
    view.state = now.state
    view.accessLevel = AccessLevelTable.level(of: now.state, in: levels)
    view.willRenew = record.willRenew
    view.store = record.store
    view.productId = strings[record.productId]
    view.environment = record.environment
    view.verifiedAtMs = record.verifiedAtMs
    view.evaluatedAtMs = nowMs
    switch record.source {
    case .numbered(_, let number):
      view.numericStoreSubscriptionId = number
      body(view)
    case .text(let source):
      // The id after the source's first colon, cut as `EntitlementRecord.storeSubscriptionId`
      // cuts it: by bytes when the source is ASCII (a colon is then a character of its own).
      var id = source
      id.withUTF8 { utf8 in
        let bytes = UnsafeRawBufferPointer(utf8)
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes.allSatisfy({ $0 < 0x80 }) {
          view.storeSubscriptionId = UnsafeRawBufferPointer(rebasing: bytes[(colon + 1)...])
          body(view)
        } else {
          var cut = EntitlementRecord.storeSubscriptionId(fromSource: source)
          cut.withUTF8 { cut in
            view.storeSubscriptionId = UnsafeRawBufferPointer(cut)
            body(view)
          }
        }
      }
    }
  }
}

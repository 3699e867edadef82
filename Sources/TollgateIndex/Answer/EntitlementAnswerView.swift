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
    var view = Self.view(of: record, nowMs: nowMs, strings: strings, levels: levels)
    switch record.source {
    case .numbered(_, let number):
      view.numericStoreSubscriptionId = number
      body(view)
    case .text(let source):
      Self.withStoreSubscriptionId(of: source) { id in
        view.storeSubscriptionId = id
        body(view)
      }
    }
  }

  /// The view of `record` at `nowMs`, but for the store's id of the subscription (the caller's:
  /// a numbered source's number, a text source's bytes). Given the record its caller read, so
  /// that the hot path copies it once.
  @inline(__always)
  static func view(
    of record: IndexedRecord, nowMs: Int64, strings: InternedBytes, levels: InternedBytes
  ) -> EntitlementAnswerView {
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
    return view
  }

  /// Calls `body` with the store's id of the subscription in a text source: the bytes after its
  /// first colon, cut as `EntitlementRecord.storeSubscriptionId` cuts it (by bytes when the
  /// source is ASCII, where a colon is a character of its own; by characters otherwise).
  static func withStoreSubscriptionId(of source: String, _ body: (UnsafeRawBufferPointer) -> Void) {
    var id = source
    id.withUTF8 { utf8 in
      let bytes = UnsafeRawBufferPointer(utf8)
      if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes.allSatisfy({ $0 < 0x80 }) {
        body(UnsafeRawBufferPointer(rebasing: bytes[(colon + 1)...]))
      } else {
        var cut = EntitlementRecord.storeSubscriptionId(fromSource: source)
        cut.withUTF8 { body(UnsafeRawBufferPointer($0)) }
      }
    }
  }
}

extension EntitlementAnswer {
  /// `view` copied out of the index (the message path's answer from the views the fast path writes).
  init(_ view: EntitlementAnswerView) {
    self.init()
    active = view.active
    expiresAtMs = view.expiresAtMs
    state = view.state
    willRenew = view.willRenew
    store = view.store
    productId = String(decoding: view.productId, as: UTF8.self)
    environment = view.environment
    verifiedAtMs = view.verifiedAtMs
    evaluatedAtMs = view.evaluatedAtMs
    numericStoreSubscriptionId = view.numericStoreSubscriptionId
    if numericStoreSubscriptionId == nil {
      storeSubscriptionId = String(decoding: view.storeSubscriptionId, as: UTF8.self)
    }
    accessLevel = String(decoding: view.accessLevel, as: UTF8.self)
  }
}

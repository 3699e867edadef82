import Synchronization
import TollgateCore

/// Every user's entitlement records, in memory: what IsSubscriber and GetSubscription answer from.
///
/// Compact, because it holds every user: a table from user-id bytes to the slot of the user's
/// first record (`ByteKeyTable`, looked up from a request's bytes without building a `String`),
/// and the records in one array (`IndexedRecord`, 56 bytes, chained per user), with repeated
/// strings interned. A million users with one record each take about 90 MB. A snapshot loads
/// through `SnapshotLoader` (both ends of the table at once, sized before it fills).
/// Reads take a short lock; writes replace one user at a time.
public final class EntitlementIndex: Sendable {
  struct State {
    var heads = ByteKeyTable()
    var slots: [IndexedRecord] = []
    var freeSlots: [Int32] = []
    var strings = InternTable()
    var recordCount = 0
    /// Records whose state the worker's outage policy decided (`store_unreachable`).
    var storeUnreachableCount = 0
    /// Written by `warm` so that its loads are kept.
    var warmed: UInt64 = 0
    /// `EntitlementRecord.replaces` by slot, for the few records that have one (Google Play
    /// purchases that replaced another): kept beside the 64-byte records, not in them.
    var replaces: [Int32: [String]] = [:]
    /// The level each state gives (the catalog's `accessLevels`), for the answers.
    var accessLevels = AccessLevelTable(.defaults)

    /// Adds `records` in front of the user's existing ones.
    mutating func add(userId: String, _ records: [EntitlementRecord]) {
      var head = heads.find(userId) ?? -1
      for record in records.reversed() {
        var indexed = IndexedRecord(record, strings: &strings)
        indexed.next = head
        if let free = freeSlots.popLast() {
          slots[Int(free)] = indexed
          head = free
        } else {
          head = Int32(slots.count)
          slots.append(indexed)
        }
        if !record.replaces.isEmpty { replaces[head] = record.replaces }
      }
      if head >= 0 { heads.set(userId, to: head) }
      recordCount += records.count
      storeUnreachableCount += records.count { $0.reason == .storeUnreachable }
    }

    mutating func remove(userId: String) {
      guard var slot = heads.remove(userId) else { return }
      while slot >= 0 {
        let next = slots[Int(slot)].next
        if case .text = slots[Int(slot)].source { slots[Int(slot)].source = .numbered(prefix: 0, number: 0) }
        if slots[Int(slot)].reason == IndexedRecord.storeUnreachable { storeUnreachableCount -= 1 }
        if !replaces.isEmpty { replaces.removeValue(forKey: slot) }
        freeSlots.append(slot)
        recordCount -= 1
        slot = next
      }
    }

    /// Calls `body` with the slot of each record chained from `head` (-1: none).
    func forEachSlot(from head: Int32, _ body: (Int) -> Void) {
      var slot = Int(head)
      while slot >= 0 {
        body(slot)
        slot = Int(slots[slot].next)
      }
    }
  }

  let state: Mutex<State>

  public init() { state = Mutex(State()) }

  /// An index of the records a `SnapshotLoader` built.
  init(loaded: consuming State) { state = Mutex(loaded) }

  /// The records of `userId` (empty when the user is unknown).
  public func records(for userId: String) -> [EntitlementRecord] {
    state.withLock { state in
      var records: [EntitlementRecord] = []
      state.forEachSlot(from: state.heads.find(userId) ?? -1) { slot in
        var record = state.slots[slot].record(userId: userId, strings: state.strings)
        record.replaces = state.replaces[Int32(slot)] ?? []
        records.append(record)
      }
      return records
    }
  }

  /// Empties the index before a snapshot is streamed in with `insert` (the access levels stay).
  public func reset() {
    state.withLock { $0 = State(accessLevels: $0.accessLevels) }
  }

  /// The access level each subscription state gives (the catalog's `accessLevels`; `.defaults`
  /// until set). Answers given after `setAccessLevels` use the new levels.
  public var accessLevels: AccessLevelPolicy { state.withLock { $0.accessLevels.policy } }

  public func setAccessLevels(_ policy: AccessLevelPolicy) {
    let table = AccessLevelTable(policy)
    state.withLock { $0.accessLevels = table }
  }

  /// Adds one record of a snapshot being streamed in (start-up); a user's records need not be
  /// adjacent.
  public func insert(_ record: EntitlementRecord) {
    state.withLock { $0.add(userId: record.userId, [record]) }
  }

  /// Replaces the records of one user; an empty array removes the user.
  public func replace(userId: String, with records: [EntitlementRecord]) {
    state.withLock { state in
      state.remove(userId: userId)
      state.add(userId: userId, records)
    }
  }

  public var userCount: Int { state.withLock { $0.heads.count } }
  public var recordCount: Int { state.withLock { $0.recordCount } }
  /// Records kept in by the worker's store-outage policy (reason `store_unreachable`).
  public var storeUnreachableCount: Int { state.withLock { $0.storeUnreachableCount } }
}

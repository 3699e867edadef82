import Synchronization
import TollgateCore
import TollgateStorage

/// Builds an index's records from a snapshot read from both ends of the table at once
/// (`EntitlementStorage.readSnapshot(into:ends:)`). Each end's sink decodes its rows into compact
/// records on its own thread, with strings interned in a table of its own, and hands over a batch
/// of whole users at a time under one lock, where the batch's strings are renumbered into the
/// index's and its users added. The ends stop where they meet: a batch takes only the users
/// beyond the other end's last one, so each user is taken once. Room for the rows the storage
/// counted is made before they arrive (`expect`): nothing doubles on the way.
final class SnapshotLoader: EntitlementSnapshotBuilder {
  struct Building {
    var state = EntitlementIndex.State()
    /// The key of the last user each end handed over.
    var forwardsLast: [UInt8]?
    var backwardsLast: [UInt8]?
    /// How many users each end handed over.
    var forwardsUsers = 0
    var backwardsUsers = 0
    var expectedRows = 0
    var arenaReserved = false
    /// What `touchEntries` read (kept, so the loads are not optimised away).
    var warmed: UInt32 = 0
  }

  let building = Mutex(Building())
  /// Users per batch.
  let batchUsers: Int

  init(batchUsers: Int = 4_096) {
    self.batchUsers = batchUsers
  }

  func expect(rows: Int) {
    building.withLock { building in
      building.expectedRows = rows
      building.state.slots.reserveCapacity(rows)
      // Keyed by user: as many keys as rows at most (most users have one record).
      building.state.heads.reserve(keys: rows)
    }
  }

  func makeSink(descending: Bool) -> any EntitlementRowSink { SnapshotSink(loader: self, descending: descending) }

  /// The records built; the loader is empty after.
  func finish() -> EntitlementIndex.State {
    building.withLock { building in
      defer { building = Building() }
      return building.state
    }
  }
}

/// One end's rows, batched by user; see `SnapshotLoader`.
final class SnapshotSink: EntitlementRowSink {
  let loader: SnapshotLoader
  let descending: Bool
  /// This end's interned strings, and what each is numbered in the index (filled as batches go).
  private var strings = InternTable()
  private var renumbered: [UInt32] = []
  // The batch: users, each a range of `keys` and of `records` (in the order read).
  private var keys: [UInt8] = []
  private var records: [IndexedRecord] = []
  private var users: [(keyEnd: Int, recordsEnd: Int)] = []
  private var replaces: [Int: [String]] = [:]
  private var hashes: [UInt64] = []

  init(loader: SnapshotLoader, descending: Bool) {
    self.loader = loader
    self.descending = descending
  }

  func take(_ row: EntitlementRowView) -> Bool {
    if users.isEmpty || !keys.withUnsafeBytes({ ByteKeyTable.equal(row.userId, key(users.count - 1, in: $0)) }) {
      // A new user: every user in the batch is whole.
      if users.count >= loader.batchUsers, !handOver() { return false }
      keys.append(contentsOf: row.userId)
      users.append((keys.count, records.count))
    }
    if !row.replaces.isEmpty {
      replaces[records.count] = String(decoding: row.replaces, as: UTF8.self).split(separator: " ").map(String.init)
    }
    records.append(IndexedRecord(row, strings: &strings))
    users[users.count - 1].recordsEnd = records.count
    return true
  }

  func finish() { _ = handOver() }

  private func key(_ user: Int, in keys: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: keys[(user == 0 ? 0 : users[user - 1].keyEnd)..<users[user].keyEnd])
  }

  /// Adds the batch's users the other end has not taken; false when it had taken some (the ends
  /// met: stop reading).
  private func handOver() -> Bool {
    defer {
      keys.removeAll(keepingCapacity: true)
      records.removeAll(keepingCapacity: true)
      users.removeAll(keepingCapacity: true)
      replaces.removeAll()
    }
    return loader.building.withLock { building in
      keys.withUnsafeBytes { keys in
        let taken = usersToTake(keys, building)
        guard taken > 0 else { return taken == users.count }
        if descending {
          building.backwardsLast = Array(key(taken - 1, in: keys))
          building.backwardsUsers += taken
        } else {
          building.forwardsLast = Array(key(taken - 1, in: keys))
          building.forwardsUsers += taken
        }
        if !building.arenaReserved, building.expectedRows > 0 {
          // The users' keys in all, from this batch's average (untouched room costs no memory).
          building.arenaReserved = true
          let perUser = users[taken - 1].keyEnd / taken + 1
          building.state.heads.reserve(keys: building.expectedRows, arenaBytes: building.expectedRows * perUser)
        }
        while renumbered.count < strings.strings.count {
          renumbered.append(building.state.strings.intern(strings[UInt32(renumbered.count)]))
        }
        // Every user's table entry loaded first, all at once, so that the cache misses of a
        // batch's inserts overlap instead of queueing one after another.
        hashes.removeAll(keepingCapacity: true)
        for user in 0..<taken { hashes.append(building.state.heads.hash(key(user, in: keys))) }
        building.warmed &+= hashes.withUnsafeBufferPointer { building.state.heads.touchEntries(hashes: $0) }
        for user in 0..<taken { add(user, key: key(user, in: keys), hash: hashes[user], to: &building.state) }
        return taken == users.count
      }
    }
  }

  /// How many of the batch's users (from its first) lie before the other end's last one.
  private func usersToTake(_ keys: UnsafeRawBufferPointer, _ building: SnapshotLoader.Building) -> Int {
    guard let other = descending ? building.forwardsLast : building.backwardsLast else { return users.count }
    return other.withUnsafeBytes { other in
      var taken = 0
      while taken < users.count {
        let order = ByteOrder.compare(key(taken, in: keys), other)
        guard descending ? order > 0 : order < 0 else { break }
        taken += 1
      }
      return taken
    }
  }

  /// Adds one user's records, chained in key order (the order `replace` leaves them in), in
  /// front of any the user has (rows handed over in no order may name a user twice).
  private func add(_ user: Int, key: UnsafeRawBufferPointer, hash: UInt64, to state: inout EntitlementIndex.State) {
    let start = user == 0 ? 0 : users[user - 1].recordsEnd
    let range = start..<users[user].recordsEnd
    let first = Int32(state.slots.count)
    for position in range {
      let read = descending ? range.upperBound - 1 - (position - start) : position
      var record = records[read]
      record.entitlement = renumbered[Int(record.entitlement)]
      record.productId = renumbered[Int(record.productId)]
      if case .numbered(let prefix, let number) = record.source {
        record.source = .numbered(prefix: renumbered[Int(prefix)], number: number)
      }
      record.next = Int32(state.slots.count + 1)
      if record.reason == IndexedRecord.storeUnreachable { state.storeUnreachableCount += 1 }
      if let replaced = replaces[read] { state.replaces[Int32(state.slots.count)] = replaced }
      state.slots.append(record)
    }
    let earlier = state.heads.exchange(key, hash: hash, for: first)
    state.slots[state.slots.count - 1].next = earlier ?? -1
    state.recordCount += range.count
  }
}

/// A hash table from byte strings (user ids, interned names) to `Int32`, looked up straight from
/// the bytes of a request: no `String` is built, and a lookup touches one 12-byte entry and the
/// key's bytes. Open addressing with linear probing and backward-shift deletion; keys live
/// back to back in one arena, which is compacted when deleted keys fill half of it.
///
/// The hash is seeded per process (keys chosen to collide in one process do not collide in the
/// next) but is not SipHash: the service's callers are the company's own backends.
struct ByteKeyTable {
  /// 12 bytes (10M users: 16M entries, 200 MB; 16-byte entries took 270 MB).
  private struct Entry {
    /// High bits of the key's hash, never 0; 0 marks an empty entry.
    var tag: UInt16 = 0
    /// The key's length, or `long`: the key is at least that long, and its length is the 4 bytes
    /// at `offset` in the arena (the key follows them). User ids are at most 256 bytes.
    var length: UInt16 = 0
    var value: Int32 = 0
    var offset: UInt32 = 0

    static let long = UInt16.max
  }

  private var entries: [Entry]
  private var arena: [UInt8] = []
  private var garbageBytes = 0
  private(set) var count = 0
  private let seed: UInt64

  init(seed: UInt64 = ByteKeyTable.processSeed) {
    self.seed = seed
    entries = Array(repeating: Entry(), count: 16)
  }

  /// A table with room for `keys` keys (and `arenaBytes` bytes of them) before it grows: a load
  /// that knows its size never doubles (no rehash, no second copy at the peak).
  init(capacity keys: Int, arenaBytes: Int = 0, seed: UInt64 = ByteKeyTable.processSeed) {
    self.seed = seed
    entries = Array(repeating: Entry(), count: Self.capacity(for: keys))
    arena.reserveCapacity(arenaBytes)
  }

  /// Makes room for `keys` keys in all (and `arenaBytes` bytes of them), rehashing once now
  /// rather than doubling several times later.
  mutating func reserve(keys: Int, arenaBytes: Int = 0) {
    let capacity = Self.capacity(for: keys)
    if capacity > entries.count { rebuild(capacity: capacity, arenaBytes: arenaBytes) }
    arena.reserveCapacity(arenaBytes)
  }

  /// The entries `keys` keys need: a power of two, at most three quarters full.
  static func capacity(for keys: Int) -> Int {
    var capacity = 16
    while capacity * 3 < keys * 4 { capacity *= 2 }
    return capacity
  }

  static let processSeed = UInt64.random(in: .min ... .max)

  // MARK: Lookups

  func find(_ key: UnsafeRawBufferPointer) -> Int32? {
    find(key, hash: hash(key))
  }

  /// `find` with the key's hash (`hash(_:)`) already at hand.
  func find(_ key: UnsafeRawBufferPointer, hash keyHash: UInt64) -> Int32? {
    index(of: key, hash: keyHash).map { entries[$0].value }
  }

  func find(_ key: String) -> Int32? { Self.withBytes(of: key, find) }

  /// Every key with its value, in no particular order.
  func forEach(_ body: (UnsafeRawBufferPointer, Int32) -> Void) {
    arena.withUnsafeBytes { arena in
      for entry in entries where entry.tag != 0 { body(Self.key(of: entry, in: arena), entry.value) }
    }
  }

  // MARK: Warming

  /// Loads, for each key, the entry its lookup starts at, and returns a value that depends on
  /// those loads (so they are not optimised away). Keys looked up together (a read's pipelined
  /// requests) then wait for their cache misses at the same time instead of one after another.
  func touchEntries(hashes: UnsafeBufferPointer<UInt64>) -> UInt32 {
    entries.withUnsafeBufferPointer { entries in
      var sink: UInt32 = 0
      for hash in hashes { sink &+= entries[home(of: hash)].offset }
      return sink
    }
  }

  /// For each key whose first probed entry looks like a match, loads its key's bytes in the
  /// arena and hands the entry's value to `touchValue` in the same step (what the value points
  /// at depends only on the entry, not on the key's bytes, so both misses wait together); the
  /// second step of warming. Returns a value that depends on every load.
  func touchKeys(hashes: UnsafeBufferPointer<UInt64>, touchValue: (Int32) -> UInt64) -> UInt64 {
    entries.withUnsafeBufferPointer { entries in
      arena.withUnsafeBytes { arena in
        var sink: UInt64 = 0
        for hash in hashes {
          let entry = entries[home(of: hash)]
          if entry.tag == Self.tag(of: hash), entry.length > 0 {
            // First and last byte: a key may span two cache lines (a long key: its first bytes).
            let last = entry.length == Entry.long ? entry.offset : entry.offset + UInt32(entry.length) - 1
            sink &+= UInt64(arena[Int(entry.offset)] &+ arena[Int(last)])
            sink &+= touchValue(entry.value)
          }
        }
        return sink
      }
    }
  }

  func hash(_ key: UnsafeRawBufferPointer) -> UInt64 { Self.hash(key, seed: seed) }

  // MARK: Changes

  /// Sets the value of `key`, adding the key when it is new.
  mutating func set(_ key: String, to value: Int32) {
    Self.withBytes(of: key) { set($0, to: value) }
  }

  mutating func set(_ key: UnsafeRawBufferPointer, to value: Int32) {
    _ = exchange(key, for: value)
  }

  /// Sets the value of `key` (adding the key when it is new) and returns the value it had, in one
  /// probe.
  mutating func exchange(_ key: UnsafeRawBufferPointer, for value: Int32) -> Int32? {
    exchange(key, hash: hash(key), for: value)
  }

  /// `exchange` with the key's hash (`hash(_:)`) already at hand.
  mutating func exchange(_ key: UnsafeRawBufferPointer, hash keyHash: UInt64, for value: Int32) -> Int32? {
    if let index = index(of: key, hash: keyHash) {
      defer { entries[index].value = value }
      return entries[index].value
    }
    if (count + 1) * 4 > entries.count * 3 { rebuild(capacity: entries.count * 2) }
    let offset = arena.count
    precondition(offset + key.count + 4 <= Int(UInt32.max), "ByteKeyTable: arena over 4 GiB")
    let length: UInt16
    if key.count >= Int(Entry.long) {
      length = Entry.long
      withUnsafeBytes(of: UInt32(key.count)) { arena.append(contentsOf: $0) }
    } else {
      length = UInt16(key.count)
    }
    arena.append(contentsOf: key)
    place(Entry(tag: Self.tag(of: keyHash), length: length, value: value, offset: UInt32(offset)), hash: keyHash)
    count += 1
    return nil
  }

  /// Removes `key`; its value, or nil when it was not there.
  @discardableResult
  mutating func remove(_ key: String) -> Int32? {
    Self.withBytes(of: key) { remove($0) }
  }

  @discardableResult
  mutating func remove(_ key: UnsafeRawBufferPointer) -> Int32? {
    guard var hole = index(of: key, hash: hash(key)) else { return nil }
    let removed = entries[hole]
    let mask = entries.count - 1
    // Backward shift: move later entries of the probe run into the hole when their home slot
    // allows it, so that no tombstones are needed.
    var next = (hole + 1) & mask
    while entries[next].tag != 0 {
      let start = arena.withUnsafeBytes { home(of: hash(Self.key(of: entries[next], in: $0))) }
      if (next - start) & mask >= (next - hole) & mask {
        entries[hole] = entries[next]
        hole = next
      }
      next = (next + 1) & mask
    }
    entries[hole] = Entry()
    count -= 1
    garbageBytes +=
      arena.withUnsafeBytes { Self.key(of: removed, in: $0).count } + (removed.length == Entry.long ? 4 : 0)
    if garbageBytes > 65_536, garbageBytes * 2 > arena.count { rebuild(capacity: entries.count) }
    return removed.value
  }

  // MARK: Inside

  /// The entry holding `key`: the one probe loop of every lookup and change.
  private func index(of key: UnsafeRawBufferPointer, hash keyHash: UInt64) -> Int? {
    let tag = Self.tag(of: keyHash)
    let mask = entries.count - 1
    return entries.withUnsafeBufferPointer { entries in
      arena.withUnsafeBytes { arena in
        var index = home(of: keyHash)
        while entries[index].tag != 0 {
          let entry = entries[index]
          if entry.tag == tag, Int(entry.length) == key.count || entry.length == Entry.long,
            Self.equal(key, Self.key(of: entry, in: arena))
          {
            return index
          }
          index = (index + 1) & mask
        }
        return nil
      }
    }
  }

  /// Where the probe for a key of this hash starts.
  private func home(of hash: UInt64) -> Int { Int(truncatingIfNeeded: hash) & (entries.count - 1) }

  private static func key(of entry: Entry, in arena: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    var start = Int(entry.offset)
    var length = Int(entry.length)
    if entry.length == Entry.long {
      length = Int(arena.loadUnaligned(fromByteOffset: start, as: UInt32.self))
      start += 4
    }
    return UnsafeRawBufferPointer(rebasing: arena[start..<start + length])
  }

  private static func withBytes<Result>(of key: String, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    var key = key
    return key.withUTF8 { body(UnsafeRawBufferPointer($0)) }
  }

  private mutating func place(_ entry: Entry, hash: UInt64) {
    let mask = entries.count - 1
    var index = home(of: hash)
    while entries[index].tag != 0 { index = (index + 1) & mask }
    entries[index] = entry
  }

  /// Re-places every entry into `capacity` entries and packs the arena.
  private mutating func rebuild(capacity: Int, arenaBytes: Int = 0) {
    let old = entries
    let oldArena = arena
    entries = Array(repeating: Entry(), count: capacity)
    arena = []
    arena.reserveCapacity(max(arenaBytes, oldArena.count - garbageBytes))
    garbageBytes = 0
    oldArena.withUnsafeBytes { oldArena in
      for var entry in old where entry.tag != 0 {
        let key = Self.key(of: entry, in: oldArena)
        entry.offset = UInt32(arena.count)
        if entry.length == Entry.long { withUnsafeBytes(of: UInt32(key.count)) { arena.append(contentsOf: $0) } }
        arena.append(contentsOf: key)
        place(entry, hash: hash(key))
      }
    }
  }

  private static func tag(of hash: UInt64) -> UInt16 { UInt16(truncatingIfNeeded: hash >> 48) | 1 }

  /// Whether two byte strings are equal; inline, eight bytes at a time (ids are short: a call to
  /// `memcmp` cost more than the comparison).
  static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    var offset = 0
    while offset + 8 <= a.count {
      guard
        a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
          == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
      else { return false }
      offset += 8
    }
    while offset < a.count {
      guard a[offset] == b[offset] else { return false }
      offset += 1
    }
    return true
  }

  /// A seeded multiply-mix hash over 8-byte words (in the manner of wyhash).
  static func hash(_ key: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
    @inline(__always) func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
      let product = a.multipliedFullWidth(by: b)
      return product.high ^ product.low
    }
    let p0: UInt64 = 0xa076_1d64_78bd_642f
    let p1: UInt64 = 0xe703_7ed1_a0b4_28db
    var state = seed ^ p0 ^ UInt64(key.count)
    var offset = 0
    while offset + 8 <= key.count {
      state = mix(state ^ key.loadUnaligned(fromByteOffset: offset, as: UInt64.self), p1)
      offset += 8
    }
    if offset < key.count {
      var tail: UInt64 = 0
      for index in offset..<key.count { tail = tail << 8 | UInt64(key[index]) }
      state = mix(state ^ tail, p1 ^ 0x8bb8_4b93_962e_acc9)
    }
    return mix(state ^ p0, p1 ^ UInt64(key.count))
  }
}

/// The requests of one connection that are waiting for their answer, by request id, with the
/// moment each latency counts from. A ring indexed by the low bits of the id: ids grow by one per
/// request and at most `capacity` are outstanding, so slots rarely collide (only when an old
/// request is never answered: the sender then skips to an id whose slot is free); an answer whose
/// id is not outstanding (never sent, or answered before) is reported, not guessed at.
struct InFlightTable {
  private var ids: [UInt32]
  private var startsNs: [UInt64]
  private var occupied: [Bool]
  private let mask: Int
  private(set) var count = 0

  /// Room for `capacity` outstanding requests.
  init(capacity: Int) {
    var size = 1
    while size < capacity { size <<= 1 }
    ids = [UInt32](repeating: 0, count: size)
    startsNs = [UInt64](repeating: 0, count: size)
    occupied = [Bool](repeating: false, count: size)
    mask = size - 1
  }

  var capacity: Int { mask + 1 }

  /// Whether a request with this id can be recorded now.
  func isFree(_ id: UInt32) -> Bool { !occupied[Int(id) & mask] }

  /// Records a sent request; false when its slot is still taken (the caller sent too many).
  mutating func insert(id: UInt32, startNs: UInt64) -> Bool {
    let slot = Int(id) & mask
    guard !occupied[slot] else { return false }
    occupied[slot] = true
    ids[slot] = id
    startsNs[slot] = startNs
    count += 1
    return true
  }

  /// Takes an answered request out; nil when no request with that id is outstanding.
  mutating func remove(id: UInt32) -> UInt64? {
    let slot = Int(id) & mask
    guard occupied[slot], ids[slot] == id else { return nil }
    occupied[slot] = false
    count -= 1
    return startsNs[slot]
  }
}

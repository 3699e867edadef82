import TollgateCore

/// One entitlement record as the index keeps it: strings that repeat across users (entitlement,
/// product, the source's store prefix) are numbers into an `InternTable`, and a source whose id is
/// a plain decimal number (Apple's original transaction ids, seeded users) is kept as that number,
/// so a typical record owns no heap memory at all. 56 bytes: the fields are declared in the order
/// that leaves no padding (`source` takes 17 bytes, the three one-byte fields fill it to 20, the
/// three 4-byte fields to 32), and `reason`, `environment` and `willRenew` share one byte
/// (`flags`); each still reads and writes as its own property.
struct IndexedRecord {
  var source: IndexedSource
  var store: Store
  var state: SubscriptionState
  /// `reason` (bits 0-4), `environment` (bits 5-6) and `willRenew` (bit 7).
  var flags: UInt8 = 0
  var entitlement: UInt32
  var productId: UInt32
  /// The user's next record's slot, or -1.
  var next: Int32 = -1
  var expiresAtMs: Int64
  var accessEndsAtMs: Int64
  var verifiedAtMs: Int64

  /// The record's `StateReason` as its position in `allCases` + 1 (0: none).
  var reason: UInt8 {
    get { flags & 0x1F }
    set {
      precondition(newValue <= 0x1F, "IndexedRecord: a reason code over 31")
      flags = flags & ~0x1F | newValue
    }
  }

  var environment: StoreEnvironment {
    get { flags & 0x60 == 0 ? .production : .sandbox }
    set {
      let bits: UInt8 =
        switch newValue {
        case .production: 0
        case .sandbox: 0x20
        }
      flags = flags & ~0x60 | bits
    }
  }

  var willRenew: Bool {
    get { flags & 0x80 != 0 }
    set { flags = flags & ~0x80 | (newValue ? 0x80 : 0) }
  }
}

/// A record's `source` (`app_store:2000000100000001`).
enum IndexedSource: Hashable {
  /// `<prefix><number>`: the prefix (up to and including the colon) interned, the id as a number.
  case numbered(prefix: UInt32, number: UInt64)
  /// Anything else, as it is.
  case text(String)
}

/// Strings that many records share, stored once and referred to by number. Append-only.
///
/// Each string is kept twice: as a `String` for the message path, and as UTF-8 bytes back to back
/// in one array (`withBytes`), which the hot path writes answers from without copying or counting
/// a reference to any `String`.
struct InternTable {
  private var numbers = ByteKeyTable()
  private(set) var strings: [String] = []
  /// Every string's UTF-8, back to back, in number order.
  private var utf8: [UInt8] = []
  /// Where each string's bytes end in `utf8`, by number (the previous one's end is its start).
  private var ends: [UInt32] = []

  mutating func intern(_ string: String) -> UInt32 {
    if let number = numbers.find(string) { return UInt32(number) }
    let number = UInt32(strings.count)
    strings.append(string)
    utf8.append(contentsOf: string.utf8)
    ends.append(UInt32(utf8.count))
    numbers.set(string, to: Int32(number))
    return number
  }

  /// Calls `body` with the strings' bytes, which are valid until it returns.
  func withBytes<R>(_ body: (InternedBytes) -> R) -> R {
    utf8.withUnsafeBytes { utf8 in
      ends.withUnsafeBufferPointer { ends in body(InternedBytes(utf8: utf8, ends: ends)) }
    }
  }

  /// `intern` of the string whose UTF-8 bytes are `bytes`: a `String` is made only for a new one.
  mutating func intern(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    if let number = numbers.find(bytes) { return UInt32(number) }
    return intern(String(decoding: bytes, as: UTF8.self))
  }

  /// The number of the string whose UTF-8 bytes are `bytes`, if it was interned.
  func number(of bytes: UnsafeRawBufferPointer) -> UInt32? { numbers.find(bytes).map(UInt32.init) }

  func number(of string: String) -> UInt32? { numbers.find(string).map(UInt32.init) }

  subscript(number: UInt32) -> String { strings[Int(number)] }
}

/// An `InternTable`'s strings as UTF-8 bytes, valid during the `withBytes` call that made it.
struct InternedBytes {
  let utf8: UnsafeRawBufferPointer
  let ends: UnsafeBufferPointer<UInt32>

  /// The bytes of the string numbered `number`.
  subscript(number: UInt32) -> UnsafeRawBufferPointer {
    let end = Int(ends[Int(number)])
    let start = number == 0 ? 0 : Int(ends[Int(number) - 1])
    return UnsafeRawBufferPointer(rebasing: utf8[start..<end])
  }
}

extension IndexedRecord {
  /// Every reason by its code - 1, and every code by its reason, built once: `allCases` makes a
  /// new array at each use, and this runs for every record loaded at start-up.
  static let reasons = {
    precondition(StateReason.allCases.count <= 0x1F, "IndexedRecord.flags holds reason codes up to 31")
    return StateReason.allCases
  }()
  static let reasonCodes = Dictionary(uniqueKeysWithValues: reasons.enumerated().map { ($1, UInt8($0 + 1)) })
  /// `reason` for `StateReason.storeUnreachable`.
  static let storeUnreachable = reasonCodes[.storeUnreachable]!

  init(_ record: EntitlementRecord, strings: inout InternTable) {
    source = IndexedSource(record.source, strings: &strings)
    store = record.store
    state = record.state
    entitlement = strings.intern(record.entitlement)
    productId = strings.intern(record.productId)
    expiresAtMs = record.expiresAtMs
    accessEndsAtMs = record.accessEndsAtMs
    verifiedAtMs = record.verifiedAtMs
    reason = record.reason.flatMap { Self.reasonCodes[$0] } ?? 0
    environment = record.environment
    willRenew = record.willRenew
  }

  func record(userId: String, strings: InternTable) -> EntitlementRecord {
    EntitlementRecord(
      userId: userId, entitlement: strings[entitlement], source: source.text(strings), store: store,
      productId: strings[productId], environment: environment, state: state, willRenew: willRenew,
      expiresAtMs: expiresAtMs, accessEndsAtMs: accessEndsAtMs, verifiedAtMs: verifiedAtMs,
      reason: reason == 0 ? nil : Self.reasons[Int(reason) - 1])
  }

  /// How it reads at `nowMs`, by Core's rule.
  func atQueryTime(_ nowMs: Int64) -> (active: Bool, state: SubscriptionState) {
    state.atQueryTime(accessEndsAtMs: accessEndsAtMs, nowMs: nowMs)
  }

  /// Core's preference (`EntitlementRank`), the source breaking ties.
  func isPreferred(over other: IndexedRecord, at nowMs: Int64, strings: InternTable) -> Bool {
    let rank = EntitlementRank(
      active: atQueryTime(nowMs).active, accessEndsAtMs: accessEndsAtMs, verifiedAtMs: verifiedAtMs)
    let otherRank = EntitlementRank(
      active: other.atQueryTime(nowMs).active, accessEndsAtMs: other.accessEndsAtMs, verifiedAtMs: other.verifiedAtMs)
    return rank.isPreferred(over: otherRank) ?? (source.text(strings) < other.source.text(strings))
  }
}

extension IndexedSource {
  /// The source as the index keeps it, by the one rule of `init(_: UnsafeRawBufferPointer, strings:)`
  /// (a text source keeps the `String` it was given).
  init(_ source: String, strings: inout InternTable) {
    var utf8 = source
    let indexed = utf8.withUTF8 { IndexedSource(UnsafeRawBufferPointer($0), strings: &strings) }
    if case .numbered = indexed { self = indexed } else { self = .text(source) }
  }

  func text(_ strings: InternTable) -> String {
    switch self {
    case .numbered(let prefix, let number): strings[prefix] + String(number)
    case .text(let text): text
    }
  }
}

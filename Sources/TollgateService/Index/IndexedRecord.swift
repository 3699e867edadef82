import TollgateCore

/// One entitlement record as the index keeps it: strings that repeat across users (entitlement,
/// product, the source's store prefix) are numbers into an `InternTable`, and a source whose id is
/// a plain decimal number (Apple's original transaction ids, seeded users) is kept as that number,
/// so a typical record owns no heap memory at all. 64 bytes.
struct IndexedRecord {
  var entitlement: UInt32
  var productId: UInt32
  var source: IndexedSource
  var expiresAtMs: Int64
  var accessEndsAtMs: Int64
  var verifiedAtMs: Int64
  var store: Store
  var environment: StoreEnvironment
  var state: SubscriptionState
  var willRenew: Bool
  /// The user's next record's slot, or -1.
  var next: Int32 = -1
}

/// A record's `source` (`app_store:2000000100000001`).
enum IndexedSource: Hashable {
  /// `<prefix><number>`: the prefix (up to and including the colon) interned, the id as a number.
  case numbered(prefix: UInt32, number: UInt64)
  /// Anything else, as it is.
  case text(String)
}

/// Strings that many records share, stored once and referred to by number. Append-only.
struct InternTable {
  private var numbers: [String: UInt32] = [:]
  private(set) var strings: [String] = []

  mutating func intern(_ string: String) -> UInt32 {
    if let number = numbers[string] { return number }
    let number = UInt32(strings.count)
    strings.append(string)
    numbers[string] = number
    return number
  }

  func number(of string: String) -> UInt32? { numbers[string] }

  subscript(number: UInt32) -> String { strings[Int(number)] }
}

extension IndexedRecord {
  init(_ record: EntitlementRecord, strings: inout InternTable) {
    entitlement = strings.intern(record.entitlement)
    productId = strings.intern(record.productId)
    source = IndexedSource(record.source, strings: &strings)
    expiresAtMs = record.expiresAtMs
    accessEndsAtMs = record.accessEndsAtMs
    verifiedAtMs = record.verifiedAtMs
    store = record.store
    environment = record.environment
    state = record.state
    willRenew = record.willRenew
  }

  func record(userId: String, strings: InternTable) -> EntitlementRecord {
    EntitlementRecord(
      userId: userId, entitlement: strings[entitlement], source: source.text(strings), store: store,
      productId: strings[productId], environment: environment, state: state, willRenew: willRenew,
      expiresAtMs: expiresAtMs, accessEndsAtMs: accessEndsAtMs, verifiedAtMs: verifiedAtMs)
  }

  /// Whether it gives access at `nowMs` (as `EvaluatedEntitlement` decides).
  func isActive(at nowMs: Int64) -> Bool { state.isEntitledByDefault && nowMs < accessEndsAtMs }

  /// The same preference as `EvaluatedEntitlement.isPreferred(over:)`: active first, then the
  /// longest access, then the most recently verified, then the source.
  func isPreferred(over other: IndexedRecord, at nowMs: Int64, strings: InternTable) -> Bool {
    let active = isActive(at: nowMs)
    let otherActive = other.isActive(at: nowMs)
    if active != otherActive { return active }
    if accessEndsAtMs != other.accessEndsAtMs { return accessEndsAtMs > other.accessEndsAtMs }
    if verifiedAtMs != other.verifiedAtMs { return verifiedAtMs > other.verifiedAtMs }
    return source.text(strings) < other.source.text(strings)
  }
}

extension IndexedSource {
  init(_ source: String, strings: inout InternTable) {
    let utf8 = source.utf8
    if let colon = utf8.firstIndex(of: UInt8(ascii: ":")) {
      let digits = utf8[utf8.index(after: colon)...]
      // Only a canonical decimal (no sign, no leading zero, fits) round-trips through a number.
      if (1...19).contains(digits.count), digits.first != UInt8(ascii: "0") || digits.count == 1,
        digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
        let number = UInt64(Substring(digits))
      {
        self = .numbered(prefix: strings.intern(String(Substring(utf8[...colon]))), number: number)
        return
      }
    }
    self = .text(source)
  }

  func text(_ strings: InternTable) -> String {
    switch self {
    case .numbered(let prefix, let number): strings[prefix] + String(number)
    case .text(let text): text
    }
  }

  /// The store's own id: what follows the first colon.
  func storeSubscriptionId(_ strings: InternTable) -> String {
    switch self {
    case .numbered(_, let number): return String(number)
    case .text(let text):
      guard let colon = text.firstIndex(of: ":") else { return text }
      return String(text[text.index(after: colon)...])
    }
  }
}

import TollgateCore

/// Random users for the GetSubscription property tests, from a seed: a few sources per user
/// (numbered and text, odd and unicode), several records per source, several entitlements,
/// every state, reasons, replaces chains, and times close together around `baseMs` so that
/// ranks tie and access ends on either side of the query time.
struct RandomUsers {
  static let baseMs: Int64 = 1_800_000_000_000

  private var state: UInt64
  private var nextUser = 0

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func int(in range: ClosedRange<Int64>) -> Int64 {
    range.lowerBound + Int64(next() % UInt64(range.upperBound - range.lowerBound + 1))
  }

  mutating func pick<Element>(_ values: [Element]) -> Element { values[Int(next() % UInt64(values.count))] }

  mutating func chance(_ percent: UInt64) -> Bool { next() % 100 < percent }

  static let userIds = [
    "u", "user-42", "ü-ser", "用户", "emoji-😀", "with space", "tab\tid", "a:b", "NFC-é", "NFD-e\u{301}", "0",
    String(repeating: "long", count: 60),
  ]
  static let entitlements = ["premium", "pro", "basic", "é", "e\u{301}", "プレミアム", "", "a", "ab", "B", "premium2"]
  static let products = ["monthly", "com.example.premium.yearly.a-rather-long-product-id", "", "ü-product"]

  /// Sources for one user: a few of these.
  mutating func sources() -> [String] {
    let pool = [
      "app_store:\(int(in: 1...999_999_999_999_999_999))", "app_store:2000000000000001", "app_store:2000000000000002",
      "app_store:10", "app_store:9", "app_store:100", "google_play:\(int(in: 1...99_999))", "prómo:12", "e\u{301}:7",
      "google_play:tok-\(int(in: 1...9))", "app_store:0123", "amazon:rcpt-x", "plain", "a:b:c", "a:\u{301}x", "",
      "app_store:99999999999999999999", "app_store:", "промо:абв", "promotional:grant-\(int(in: 1...3))",
    ]
    var chosen: [String] = []
    for _ in 0..<int(in: 1...3) { chosen.append(pick(pool)) }
    return chosen
  }

  mutating func replaces() -> [String] {
    guard chance(25) else { return [] }
    var chain: [String] = []
    for _ in 0..<int(in: 1...3) { chain.append(chance(10) ? "" : "old-tok-\(int(in: 1...99))") }
    return chain
  }

  mutating func record(userId: String, source: String) -> EntitlementRecord {
    let accessEndsAtMs = Self.baseMs + int(in: -5...5) * 1_000
    return EntitlementRecord(
      userId: userId, entitlement: pick(Self.entitlements), source: source, store: pick(Store.allCases),
      productId: pick(Self.products), environment: pick(StoreEnvironment.allCases),
      state: pick(SubscriptionState.allCases), willRenew: chance(50),
      expiresAtMs: accessEndsAtMs - int(in: 0...2) * 1_000,
      accessEndsAtMs: accessEndsAtMs, verifiedAtMs: Self.baseMs - int(in: 0...3) * 1_000,
      reason: chance(30) ? nil : pick(StateReason.allCases), replaces: replaces())
  }

  /// A few users (distinct ids), each with 1 to 8 records.
  mutating func users() -> [(userId: String, records: [EntitlementRecord])] {
    var users: [(userId: String, records: [EntitlementRecord])] = []
    for _ in 0..<int(in: 1...5) {
      nextUser += 1
      let userId = pick(Self.userIds) + (chance(20) ? "" : "-\(nextUser)")
      // A repeated id keeps its first records.
      guard !users.contains(where: { $0.userId == userId }) else { continue }
      let sources = sources()
      var records: [EntitlementRecord] = []
      for _ in 0..<int(in: 1...8) { records.append(record(userId: userId, source: pick(sources))) }
      users.append((userId, records))
    }
    return users
  }

  /// The defaults, or some states at other levels (an operator's `read_only`, `full` in billing retry).
  mutating func accessLevels() -> AccessLevelPolicy {
    guard chance(60) else { return .defaults }
    var levels: [SubscriptionState: AccessLevel] = [:]
    for state in SubscriptionState.allCases where chance(30) {
      levels[state] = pick(["read_only", "full", "none", "é"])
    }
    return AccessLevelPolicy(levels: levels)
  }
}

import TollgateCore

/// The catalog's access levels (`AccessLevelPolicy`) as the index answers them: one level name per
/// subscription state, looked up by the state's position, so that an answer costs no hashing.
struct AccessLevelTable: Sendable {
  let policy: AccessLevelPolicy
  private let levels: [String]
  /// The levels' UTF-8 back to back, by position, and where each ends (`InternedBytes`).
  private let utf8: [UInt8]
  private let ends: [UInt32]

  init(_ policy: AccessLevelPolicy) {
    self.policy = policy
    var levels = [String](repeating: "", count: SubscriptionState.allCases.count)
    for state in SubscriptionState.allCases { levels[Self.position(of: state)] = policy.level(for: state).rawValue }
    self.levels = levels
    utf8 = levels.flatMap(\.utf8)
    var end: UInt32 = 0
    ends = levels.map { level in
      end += UInt32(level.utf8.count)
      return end
    }
  }

  /// The level `state` gives.
  subscript(state: SubscriptionState) -> String { levels[Self.position(of: state)] }

  /// Calls `body` with the levels' bytes (`subscript(state:in:)`), valid until it returns.
  func withBytes<R>(_ body: (InternedBytes) -> R) -> R {
    utf8.withUnsafeBytes { utf8 in
      ends.withUnsafeBufferPointer { ends in body(InternedBytes(utf8: utf8, ends: ends)) }
    }
  }

  /// The bytes of the level `state` gives, from `withBytes`'s `bytes`.
  static func level(of state: SubscriptionState, in bytes: InternedBytes) -> UnsafeRawBufferPointer {
    bytes[UInt32(position(of: state))]
  }

  private static func position(of state: SubscriptionState) -> Int {
    switch state {
    case .trial: 0
    case .introOffer: 1
    case .active: 2
    case .gracePeriod: 3
    case .billingRetry: 4
    case .onHold: 5
    case .paused: 6
    case .expired: 7
    case .revoked: 8
    }
  }
}

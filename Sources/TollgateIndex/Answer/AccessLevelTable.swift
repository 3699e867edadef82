import TollgateCore

/// The catalog's access levels (`AccessLevelPolicy`) as the index answers them: one level name per
/// subscription state, looked up by the state's position, so that an answer costs no hashing.
struct AccessLevelTable: Sendable {
  let policy: AccessLevelPolicy
  private let levels: [String]

  init(_ policy: AccessLevelPolicy) {
    self.policy = policy
    var levels = [String](repeating: "", count: SubscriptionState.allCases.count)
    for state in SubscriptionState.allCases { levels[Self.position(of: state)] = policy.level(for: state).rawValue }
    self.levels = levels
  }

  /// The level `state` gives.
  subscript(state: SubscriptionState) -> String { levels[Self.position(of: state)] }

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

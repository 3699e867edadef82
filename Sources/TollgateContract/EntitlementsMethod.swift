/// The methods of `service Entitlements`, by their wire index (declaration order in the proto).
public enum EntitlementsMethod: UInt32, Sendable, CaseIterable {
  case isSubscriber = 0
  case getSubscription = 1
  case submitPurchase = 2
  case health = 3
  case authenticate = 4
  case getSubmission = 5
  // Support and admin (issue 28): each needs the `admin` scope.
  case lookUp = 6
  case getTimeline = 7
  case explain = 8
  case grant = 9
  case revoke = 10
  case reverify = 11
  case eraseUser = 12

  public var name: String {
    switch self {
    case .isSubscriber: "IsSubscriber"
    case .getSubscription: "GetSubscription"
    case .submitPurchase: "SubmitPurchase"
    case .health: "Health"
    case .authenticate: "Authenticate"
    case .getSubmission: "GetSubmission"
    case .lookUp: "LookUp"
    case .getTimeline: "GetTimeline"
    case .explain: "Explain"
    case .grant: "Grant"
    case .revoke: "Revoke"
    case .reverify: "Reverify"
    case .eraseUser: "EraseUser"
    }
  }

  /// Whether the method only reads: a read the server may have received can be sent again (the
  /// client's failover); a write (SubmitPurchase, Grant, Revoke, Reverify, EraseUser) cannot.
  public var isRead: Bool {
    switch self {
    case .isSubscriber, .getSubscription, .health, .getSubmission, .lookUp, .getTimeline, .explain: true
    case .submitPurchase, .authenticate, .grant, .revoke, .reverify, .eraseUser: false
    }
  }
}

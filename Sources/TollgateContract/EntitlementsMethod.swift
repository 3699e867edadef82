/// The methods of `service Entitlements`, by their wire index (declaration order in the proto).
public enum EntitlementsMethod: UInt32, Sendable, CaseIterable {
  case isSubscriber = 0
  case getSubscription = 1
  case submitPurchase = 2
  case health = 3
  case authenticate = 4
  case getSubmission = 5

  public var name: String {
    switch self {
    case .isSubscriber: "IsSubscriber"
    case .getSubscription: "GetSubscription"
    case .submitPurchase: "SubmitPurchase"
    case .health: "Health"
    case .authenticate: "Authenticate"
    case .getSubmission: "GetSubmission"
    }
  }
}

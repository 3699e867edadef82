/// Every operation a caller can ask for, whatever the door (the fast port, gRPC, HTTP), and the
/// scope each needs: the one scope table of docs/protocol.md ("Authentication"). A door maps
/// its method or route to one of these and asks `CallerGate.authorize(_:for:)`; none keeps a
/// table of its own. The fast port's Authenticate is not an operation: it needs no scope.
public enum CallerOperation: String, Sendable, CaseIterable {
  case isSubscriber
  case getSubscription
  case health
  case submitPurchase
  case getSubmission
  // The support and admin operations (issue 28): every one needs `admin`.
  case lookUp
  case getTimeline
  case explain
  case grant
  case revoke
  case reverify
  case eraseUser

  /// The scope a caller needs for it (`CallerScopes.allow`: `admin` allows everything).
  /// Inlinable, so that a constant operation (the fast port's IsSubscriber) folds to its scope.
  @inlinable
  public var requiredScope: CallerScopes {
    switch self {
    case .isSubscriber, .getSubscription, .health: .read
    case .submitPurchase, .getSubmission: .submit
    case .lookUp, .getTimeline, .explain, .grant, .revoke, .reverify, .eraseUser: .admin
    }
  }

  /// The method's name in `service Entitlements` (proto/tollgate.proto), as refusals name it.
  public var methodName: String {
    switch self {
    case .isSubscriber: "IsSubscriber"
    case .getSubscription: "GetSubscription"
    case .health: "Health"
    case .submitPurchase: "SubmitPurchase"
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
}

import TollgateContract
import TollgateCore

// Core's store, environment and subscription state as proto/tollgate.proto's enums, one mapping
// for every module that answers in the proto's terms (the service's responder, the support desk).
// Inlinable: IsSubscriber's answer is built with them on the hot path.

extension Tollgate_V1_Store {
  @inlinable
  public init(_ store: Store) {
    switch store {
    case .appStore: self = .appStore
    case .googlePlay: self = .googlePlay
    case .amazon: self = .amazon
    case .promotional: self = .promotional
    }
  }

  /// Core's store; nil for unspecified and for a value this build does not know.
  @inlinable
  public var core: Store? {
    switch self {
    case .appStore: .appStore
    case .googlePlay: .googlePlay
    case .amazon: .amazon
    case .promotional: .promotional
    case .unspecified, .UNRECOGNIZED: nil
    }
  }
}

extension Tollgate_V1_Environment {
  @inlinable
  public init(_ environment: StoreEnvironment) {
    switch environment {
    case .production: self = .production
    case .sandbox: self = .sandbox
    }
  }
}

extension Tollgate_V1_SubscriptionState {
  @inlinable
  public init(_ state: SubscriptionState) {
    switch state {
    case .trial: self = .trial
    case .introOffer: self = .introOffer
    case .active: self = .active
    case .gracePeriod: self = .gracePeriod
    case .billingRetry: self = .billingRetry
    case .onHold: self = .onHold
    case .paused: self = .paused
    case .expired: self = .expired
    case .revoked: self = .revoked
    }
  }
}

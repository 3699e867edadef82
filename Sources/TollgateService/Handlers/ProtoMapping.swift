import TollgateContract
import TollgateCore
import TollgateIndex
import TollgateWire

/// Core ↔ wire conversions, one place for each direction.
extension Tollgate_V1_Store {
  init(_ store: Store) {
    switch store {
    case .appStore: self = .appStore
    case .googlePlay: self = .googlePlay
    case .amazon: self = .amazon
    case .promotional: self = .promotional
    }
  }

  var core: Store? {
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
  init(_ environment: StoreEnvironment) {
    switch environment {
    case .production: self = .production
    case .sandbox: self = .sandbox
    }
  }
}

extension Tollgate_V1_SubscriptionState {
  init(_ state: SubscriptionState) {
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

extension Tollgate_V1_EntitlementStatus {
  /// `evaluation` with the level its state gives under `accessLevels`.
  init(_ evaluation: EvaluatedEntitlement, accessLevels: AccessLevelPolicy) {
    self.init()
    let record = evaluation.record
    entitlement = record.entitlement
    active = evaluation.active
    expiresAtMs = record.accessEndsAtMs
    state = .init(evaluation.state)
    willRenew = record.willRenew
    store = .init(record.store)
    productID = record.productId
    environment = .init(record.environment)
    verifiedAtMs = record.verifiedAtMs
    storeSubscriptionID = record.storeSubscriptionId
    accessLevel = accessLevels.level(for: evaluation).rawValue
  }
}

extension IsSubscriberAnswer {
  /// The index's answer in the wire's terms, built in one step: this runs once per IsSubscriber call.
  @inline(__always)
  init(_ answer: borrowing EntitlementAnswer) {
    self.init(
      active: answer.active, expiresAtMs: answer.expiresAtMs, state: answer.state.map { .init($0) } ?? .unspecified,
      willRenew: answer.willRenew, store: answer.store.map { .init($0) } ?? .unspecified, productId: answer.productId,
      environment: answer.environment.map { .init($0) } ?? .unspecified, verifiedAtMs: answer.verifiedAtMs,
      evaluatedAtMs: answer.evaluatedAtMs, storeSubscriptionId: answer.storeSubscriptionId,
      numericStoreSubscriptionId: answer.numericStoreSubscriptionId, accessLevel: answer.accessLevel)
  }
}

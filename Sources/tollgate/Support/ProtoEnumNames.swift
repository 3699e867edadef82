import TollgateClient

/// Short lowercase names of the wire enums, as `tollgate query` prints them.
protocol ShortNamed {
  var shortName: String { get }
}

extension Tollgate_V1_SubscriptionState: ShortNamed {
  var shortName: String {
    switch self {
    case .unspecified: "none"
    case .trial: "trial"
    case .introOffer: "intro_offer"
    case .active: "active"
    case .gracePeriod: "grace_period"
    case .billingRetry: "billing_retry"
    case .onHold: "on_hold"
    case .paused: "paused"
    case .expired: "expired"
    case .revoked: "revoked"
    case .UNRECOGNIZED(let value): "unknown(\(value))"
    }
  }
}

extension Tollgate_V1_Store: ShortNamed {
  var shortName: String {
    switch self {
    case .unspecified: "none"
    case .appStore: "app_store"
    case .googlePlay: "google_play"
    case .amazon: "amazon"
    case .promotional: "promotional"
    case .UNRECOGNIZED(let value): "unknown(\(value))"
    }
  }
}

extension Tollgate_V1_Environment: ShortNamed {
  var shortName: String {
    switch self {
    case .unspecified: "none"
    case .production: "production"
    case .sandbox: "sandbox"
    case .UNRECOGNIZED(let value): "unknown(\(value))"
    }
  }
}

extension Tollgate_V1_ServingStatus: ShortNamed {
  var shortName: String {
    switch self {
    case .unspecified: "unknown"
    case .serving: "serving"
    case .degraded: "degraded"
    case .notServing: "not_serving"
    case .UNRECOGNIZED(let value): "unknown(\(value))"
    }
  }
}

import TollgateContract
import TollgateCore

/// Builds GetSubscription's two views of one user's records: per granting subscription and per
/// entitlement.
enum UserSummary {
  static func subscriptions(_ records: [EntitlementRecord], at now: Int64) -> [Tollgate_V1_Subscription] {
    var bySource: [String: [EntitlementRecord]] = [:]
    for record in records { bySource[record.source, default: []].append(record) }
    return bySource.keys.sorted().map { source in
      let group = bySource[source]!
      let evaluation = group.bestEvaluation(at: now)!
      let record = evaluation.record
      var subscription = Tollgate_V1_Subscription()
      subscription.store = .init(record.store)
      subscription.storeSubscriptionID = record.storeSubscriptionId
      subscription.productID = record.productId
      subscription.state = .init(evaluation.state)
      subscription.active = evaluation.active
      subscription.expiresAtMs = record.accessEndsAtMs
      subscription.willRenew = record.willRenew
      subscription.environment = .init(record.environment)
      subscription.verifiedAtMs = record.verifiedAtMs
      subscription.entitlements = group.map(\.entitlement).sorted()
      subscription.replaces = record.replaces
      if evaluation.state == record.state, let reason = record.reason { subscription.reason = reason.rawValue }
      return subscription
    }
  }

  static func entitlements(
    _ records: [EntitlementRecord], at now: Int64, accessLevels: AccessLevelPolicy
  ) -> [Tollgate_V1_EntitlementStatus] {
    var byEntitlement: [String: [EntitlementRecord]] = [:]
    for record in records { byEntitlement[record.entitlement, default: []].append(record) }
    return byEntitlement.keys.sorted().map { entitlement in
      Tollgate_V1_EntitlementStatus(byEntitlement[entitlement]!.bestEvaluation(at: now)!, accessLevels: accessLevels)
    }
  }
}

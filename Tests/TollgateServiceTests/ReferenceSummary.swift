import TollgateContract
import TollgateCore
import TollgateServer

/// GetSubscription's answer as the rule reads over plain records (Core's `bestEvaluation`): one
/// subscription per source, one status per entitlement, each in the byte order of its UTF-8.
/// What the index's summary must agree with; written apart from it, for the tests.
enum ReferenceSummary {
  static func response(
    userId: String, records: [EntitlementRecord], nowMs: Int64, accessLevels: AccessLevelPolicy
  ) -> Tollgate_V1_GetSubscriptionResponse {
    var response = Tollgate_V1_GetSubscriptionResponse()
    guard !records.isEmpty else {
      response.error = Tollgate_V1_Error(.notFound, "no subscriptions or grants for this user")
      return response
    }
    response.userID = userId
    response.evaluatedAtMs = nowMs
    let bySource = Dictionary(grouping: records) { Array($0.source.utf8) }
    response.subscriptions = bySource.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }).map { source in
      let group = bySource[source]!
      let evaluation = group.bestEvaluation(at: nowMs)!
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
      subscription.entitlements = group.map(\.entitlement).sorted { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }
      subscription.replaces = record.replaces
      if evaluation.state == record.state, let reason = record.reason { subscription.reason = reason.rawValue }
      return subscription
    }
    let byEntitlement = Dictionary(grouping: records) { Array($0.entitlement.utf8) }
    response.entitlements = byEntitlement.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }).map { name in
      let evaluation = byEntitlement[name]!.bestEvaluation(at: nowMs)!
      let record = evaluation.record
      var status = Tollgate_V1_EntitlementStatus()
      status.entitlement = record.entitlement
      status.active = evaluation.active
      status.expiresAtMs = record.accessEndsAtMs
      status.state = .init(evaluation.state)
      status.willRenew = record.willRenew
      status.store = .init(record.store)
      status.productID = record.productId
      status.environment = .init(record.environment)
      status.verifiedAtMs = record.verifiedAtMs
      status.storeSubscriptionID = record.storeSubscriptionId
      status.accessLevel = accessLevels.level(for: evaluation).rawValue
      return status
    }
    return response
  }
}

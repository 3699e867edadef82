import TollgateContract
import TollgateCore
import TollgateIndex
import TollgateServer

/// GetSubscription's two views of one user's records, per granting subscription and per
/// entitlement, as messages. Which records answer, and in which order, is the index's
/// (`EntitlementIndex.summarize`), for this message path and the fast path alike.
enum UserSummary {
  static func subscriptions(_ summary: UserSummaryAnswer) -> [Tollgate_V1_Subscription] {
    summary.subscriptions.map { answer in
      var subscription = Tollgate_V1_Subscription()
      subscription.store = .init(answer.store)
      subscription.storeSubscriptionID = answer.storeSubscriptionIdText
      subscription.productID = answer.productId
      subscription.state = .init(answer.state)
      subscription.active = answer.active
      subscription.expiresAtMs = answer.expiresAtMs
      subscription.willRenew = answer.willRenew
      subscription.environment = .init(answer.environment)
      subscription.verifiedAtMs = answer.verifiedAtMs
      subscription.entitlements = Array(summary.entitlements(of: answer))
      subscription.replaces = answer.replaces
      if let reason = answer.reason { subscription.reason = reason.rawValue }
      return subscription
    }
  }

  static func entitlements(_ summary: UserSummaryAnswer) -> [Tollgate_V1_EntitlementStatus] {
    summary.entitlements.map { status in
      var message = Tollgate_V1_EntitlementStatus()
      message.entitlement = status.entitlement
      let answer = status.answer
      message.active = answer.active
      message.expiresAtMs = answer.expiresAtMs
      message.state = answer.state.map { .init($0) } ?? .unspecified
      message.willRenew = answer.willRenew
      message.store = answer.store.map { .init($0) } ?? .unspecified
      message.productID = answer.productId
      message.environment = answer.environment.map { .init($0) } ?? .unspecified
      message.verifiedAtMs = answer.verifiedAtMs
      message.storeSubscriptionID = answer.storeSubscriptionIdText
      message.accessLevel = answer.accessLevel
      return message
    }
  }

  /// The per-entitlement view of records read from storage (a verified submission's user):
  /// Core's rule (`bestEvaluation`) per entitlement, by name.
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

import Foundation
import TollgateClient

/// `tollgate query --json` output: every proto field by its lowerCamelCase JSON name, defaults
/// included (protobuf's own JSON omits `false` and `0`, which a script reading `active` should not
/// have to guess), enum values by their lowercase short name (`grace_period`, `app_store`).
enum QueryJSON {
  /// One subscription's or entitlement's status: the fields IsSubscriber's answer, GetSubscription's
  /// entitlements and its subscriptions share, and those only one of them has (left out when nil).
  struct Status: Encodable {
    var entitlement: String?
    var entitlements: [String]?
    var active: Bool
    var expiresAtMs: Int64
    var state: String
    var willRenew: Bool
    var store: String
    var productId: String
    var environment: String
    var verifiedAtMs: Int64
    var evaluatedAtMs: Int64?
    var storeSubscriptionId: String
    /// The access level the state gives (IsSubscriber's answer and an entitlement's status).
    var accessLevel: String?
    /// A subscription's lifecycle rule (`current_period`, `store_unreachable`, ...), when known.
    var reason: String?
    /// The purchases a subscription replaced, newest first (Google's linkedPurchaseToken chain).
    var replaces: [String]?

    init(
      active: Bool, expiresAtMs: Int64, state: Tollgate_V1_SubscriptionState, willRenew: Bool,
      store: Tollgate_V1_Store, productId: String, environment: Tollgate_V1_Environment, verifiedAtMs: Int64,
      storeSubscriptionId: String
    ) {
      self.active = active
      self.expiresAtMs = expiresAtMs
      self.state = QueryOutput.name(state)
      self.willRenew = willRenew
      self.store = QueryOutput.name(store)
      self.productId = productId
      self.environment = QueryOutput.name(environment)
      self.verifiedAtMs = verifiedAtMs
      self.storeSubscriptionId = storeSubscriptionId
    }

    init(_ response: Tollgate_V1_IsSubscriberResponse) {
      self.init(
        active: response.active, expiresAtMs: response.expiresAtMs, state: response.state,
        willRenew: response.willRenew, store: response.store, productId: response.productID,
        environment: response.environment, verifiedAtMs: response.verifiedAtMs,
        storeSubscriptionId: response.storeSubscriptionID)
      evaluatedAtMs = response.evaluatedAtMs
      accessLevel = response.accessLevel
    }

    init(_ status: Tollgate_V1_EntitlementStatus) {
      self.init(
        active: status.active, expiresAtMs: status.expiresAtMs, state: status.state, willRenew: status.willRenew,
        store: status.store, productId: status.productID, environment: status.environment,
        verifiedAtMs: status.verifiedAtMs, storeSubscriptionId: status.storeSubscriptionID)
      entitlement = status.entitlement
      accessLevel = status.accessLevel
    }

    init(_ subscription: Tollgate_V1_Subscription) {
      self.init(
        active: subscription.active, expiresAtMs: subscription.expiresAtMs, state: subscription.state,
        willRenew: subscription.willRenew, store: subscription.store, productId: subscription.productID,
        environment: subscription.environment, verifiedAtMs: subscription.verifiedAtMs,
        storeSubscriptionId: subscription.storeSubscriptionID)
      entitlements = subscription.entitlements
      reason = subscription.reason.isEmpty ? nil : subscription.reason
      replaces = subscription.replaces.isEmpty ? nil : subscription.replaces
    }
  }

  struct GetSubscription: Encodable {
    var userId: String
    var evaluatedAtMs: Int64
    var subscriptions: [Status]
    var entitlements: [Status]

    init(_ response: Tollgate_V1_GetSubscriptionResponse) {
      userId = response.userID
      evaluatedAtMs = response.evaluatedAtMs
      subscriptions = response.subscriptions.map(Status.init)
      entitlements = response.entitlements.map(Status.init)
    }
  }

  struct Health: Encodable {
    var status: String
    /// Why it is not serving (absent when it is).
    var reason: String?
    var indexUsers: UInt64
    var indexRecords: UInt64
    var changeFeedAppliedSeq: Int64
    var changeFeedHeadSeq: Int64
    var changeFeedLagMs: Int64
    var version: String
    var uptimeMs: Int64

    init(_ response: Tollgate_V1_HealthResponse) {
      status = QueryOutput.name(response.status)
      reason = response.reason.isEmpty ? nil : response.reason
      indexUsers = response.indexUsers
      indexRecords = response.indexRecords
      changeFeedAppliedSeq = response.changeFeedAppliedSeq
      changeFeedHeadSeq = response.changeFeedHeadSeq
      changeFeedLagMs = response.changeFeedLagMs
      version = response.version
      uptimeMs = response.uptimeMs
    }
  }

  static func encode(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }
}

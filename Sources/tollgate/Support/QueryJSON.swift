import Foundation
import TollgateClient

/// `tollgate query --json` output: every proto field by its lowerCamelCase JSON name, defaults
/// included (protobuf's own JSON omits `false` and `0`, which a script reading `active` should not
/// have to guess), enum values by their lowercase short name (`grace_period`, `app_store`).
enum QueryJSON {
  struct EntitlementStatus: Encodable {
    var entitlement: String
    var active: Bool
    var expiresAtMs: Int64
    var state: String
    var willRenew: Bool
    var store: String
    var productId: String
    var environment: String
    var verifiedAtMs: Int64
    var storeSubscriptionId: String

    init(_ status: Tollgate_V1_EntitlementStatus) {
      entitlement = status.entitlement
      active = status.active
      expiresAtMs = status.expiresAtMs
      state = QueryOutput.name(status.state)
      willRenew = status.willRenew
      store = QueryOutput.name(status.store)
      productId = status.productID
      environment = QueryOutput.name(status.environment)
      verifiedAtMs = status.verifiedAtMs
      storeSubscriptionId = status.storeSubscriptionID
    }
  }

  struct IsSubscriber: Encodable {
    var active: Bool
    var expiresAtMs: Int64
    var state: String
    var willRenew: Bool
    var store: String
    var productId: String
    var environment: String
    var verifiedAtMs: Int64
    var evaluatedAtMs: Int64
    var storeSubscriptionId: String

    init(_ response: Tollgate_V1_IsSubscriberResponse) {
      active = response.active
      expiresAtMs = response.expiresAtMs
      state = QueryOutput.name(response.state)
      willRenew = response.willRenew
      store = QueryOutput.name(response.store)
      productId = response.productID
      environment = QueryOutput.name(response.environment)
      verifiedAtMs = response.verifiedAtMs
      evaluatedAtMs = response.evaluatedAtMs
      storeSubscriptionId = response.storeSubscriptionID
    }
  }

  struct Subscription: Encodable {
    var store: String
    var storeSubscriptionId: String
    var productId: String
    var state: String
    var active: Bool
    var expiresAtMs: Int64
    var willRenew: Bool
    var environment: String
    var verifiedAtMs: Int64
    var entitlements: [String]

    init(_ subscription: Tollgate_V1_Subscription) {
      store = QueryOutput.name(subscription.store)
      storeSubscriptionId = subscription.storeSubscriptionID
      productId = subscription.productID
      state = QueryOutput.name(subscription.state)
      active = subscription.active
      expiresAtMs = subscription.expiresAtMs
      willRenew = subscription.willRenew
      environment = QueryOutput.name(subscription.environment)
      verifiedAtMs = subscription.verifiedAtMs
      entitlements = subscription.entitlements
    }
  }

  struct GetSubscription: Encodable {
    var userId: String
    var evaluatedAtMs: Int64
    var subscriptions: [Subscription]
    var entitlements: [EntitlementStatus]

    init(_ response: Tollgate_V1_GetSubscriptionResponse) {
      userId = response.userID
      evaluatedAtMs = response.evaluatedAtMs
      subscriptions = response.subscriptions.map(Subscription.init)
      entitlements = response.entitlements.map(EntitlementStatus.init)
    }
  }

  struct Health: Encodable {
    var status: String
    var indexUsers: UInt64
    var indexRecords: UInt64
    var changeFeedAppliedSeq: Int64
    var changeFeedHeadSeq: Int64
    var changeFeedLagMs: Int64
    var version: String
    var uptimeMs: Int64

    init(_ response: Tollgate_V1_HealthResponse) {
      status = QueryOutput.name(response.status)
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

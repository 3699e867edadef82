import Testing
import TollgateCore

/// One day in ms.
let day: Int64 = 86_400_000
/// 2024-01-01T00:00:00Z.
let epoch: Int64 = 1_704_067_200_000

/// Day `n` after `epoch`, plus `hours`.
func d(_ n: Int64, hours: Int64 = 0) -> Int64 { epoch + n * day + hours * 3_600_000 }

/// A period of a subscription from day `from` to day `to`.
func period(
  _ id: String, _ product: String, from: Int64, to: Int64, offer: OfferType? = nil,
  discount: OfferDiscountType? = nil, revokedOn: Int64? = nil, reason: RevocationReason? = nil,
  upgraded: Bool = false, ownership: OwnershipType = .purchased
) -> StoreTransaction {
  StoreTransaction(
    transactionId: id, productId: product, purchaseDateMs: d(from), expiresDateMs: d(to), offerType: offer,
    offerDiscountType: discount, revocationDateMs: revokedOn.map { d($0) },
    revocationReason: revokedOn == nil ? nil : (reason ?? .refunded), isUpgraded: upgraded, ownershipType: ownership)
}

/// The product catalog the tables use: `premium` (level 1) above `pro_monthly` and `pro_yearly`
/// (level 2), on every store.
let catalog = ProductCatalog(
  entitlements: [EntitlementDefinition(id: "pro"), EntitlementDefinition(id: "premium_content")],
  products: [
    ProductConfig(productId: "pro_monthly", entitlements: ["pro"]),
    ProductConfig(productId: "pro_yearly", entitlements: ["pro"]),
    ProductConfig(productId: "premium", entitlements: ["pro", "premium_content"]),
  ],
  subscriptionGroups: [
    SubscriptionGroup(
      id: "main",
      products: [
        .init(productId: "premium", level: 1),
        .init(productId: "pro_monthly", level: 2),
        .init(productId: "pro_yearly", level: 2),
      ])
  ])

/// What a lifecycle table row expects; `nil` fields are not checked.
struct Expect: Sendable {
  var state: SubscriptionState
  var reason: StateReason? = nil
  var productId: String? = nil
  var expiresOn: Int64? = nil
  var accessEndsAt: Int64? = nil
  var willRenew: Bool? = nil
  var entitled: Bool? = nil
  var change: ProductChange? = nil
  var priceConsentPending: Bool? = nil
  var familyShared: Bool? = nil
  var sandbox: Bool? = nil
  var pausedUntil: Int64? = nil
  var gracePeriodEnd: Int64? = nil
  var acknowledgementPending: Bool? = nil
}

/// One row of a lifecycle table: a history, a moment, and what the documentation says follows.
struct LifecycleCase: Sendable, CustomTestStringConvertible {
  var name: String
  var history: SubscriptionHistory
  var now: Int64
  var expect: Expect
  var policy: GracePolicy = .defaults
  /// Other histories of the same user, for replacements across purchases.
  var others: [SubscriptionHistory] = []

  var testDescription: String { name }

  func evaluate() -> SubscriptionEvaluation {
    let resolved = SubscriptionReplacements.resolve([history] + others)
    return SubscriptionLifecycle.evaluate(resolved[0], at: now, policy: policy, groups: catalog.subscriptionGroups)
  }
}

/// Checks every non-nil expectation of a row.
func check(_ row: LifecycleCase, sourceLocation: SourceLocation = #_sourceLocation) {
  let result = row.evaluate()
  let e = row.expect
  #expect(result.state == e.state, "state", sourceLocation: sourceLocation)
  if let v = e.reason { #expect(result.reason == v, "reason", sourceLocation: sourceLocation) }
  if let v = e.productId { #expect(result.productId == v, "productId", sourceLocation: sourceLocation) }
  if let v = e.expiresOn { #expect(result.expiresAtMs == v, "expiresAtMs", sourceLocation: sourceLocation) }
  if let v = e.accessEndsAt { #expect(result.accessEndsAtMs == v, "accessEndsAtMs", sourceLocation: sourceLocation) }
  if let v = e.willRenew { #expect(result.willRenew == v, "willRenew", sourceLocation: sourceLocation) }
  if let v = e.entitled { #expect(result.isEntitled == v, "isEntitled", sourceLocation: sourceLocation) }
  if let v = e.change {
    #expect(result.pendingProductChange == v, "pendingProductChange", sourceLocation: sourceLocation)
  }
  if let v = e.priceConsentPending {
    #expect(result.priceIncreaseConsentPending == v, "priceIncreaseConsentPending", sourceLocation: sourceLocation)
  }
  if let v = e.familyShared { #expect(result.isFamilyShared == v, "isFamilyShared", sourceLocation: sourceLocation) }
  if let v = e.sandbox { #expect(result.isSandbox == v, "isSandbox", sourceLocation: sourceLocation) }
  if let v = e.pausedUntil { #expect(result.pausedUntilMs == v, "pausedUntilMs", sourceLocation: sourceLocation) }
  if let v = e.gracePeriodEnd {
    #expect(result.gracePeriodExpiresAtMs == v, "gracePeriodExpiresAtMs", sourceLocation: sourceLocation)
  }
  if let v = e.acknowledgementPending {
    #expect(result.acknowledgementPending == v, "acknowledgementPending", sourceLocation: sourceLocation)
  }
}

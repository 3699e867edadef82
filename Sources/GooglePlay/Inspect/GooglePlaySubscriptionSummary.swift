import TollgateCore

/// What `inspect google-subscription` says about a subscription resource at a moment, in
/// Tollgate's terms: the unified state and entitlement as `SubscriptionLifecycle` computes them
/// from the mapped history, and the few facts a support engineer asks first. Built from any
/// resource that decodes, even a partial one.
public struct GooglePlaySubscriptionSummary: Sendable, Hashable {
  /// Tollgate's unified state.
  public var state: SubscriptionState
  /// Whether the default access policy entitles the user at the moment.
  public var entitled: Bool
  /// The latest line item's expiry (v1: `expiryTimeMillis`), or `nil`.
  public var expiresAtMs: Int64?
  public var autoRenew: Bool
  /// `nil` when the resource does not say (or says UNSPECIFIED, or a value Tollgate does not know).
  public var acknowledged: Bool?
  public var testPurchase: Bool
  public var environment: StoreEnvironment
  public var linkedPurchaseToken: String?
  /// The line items' products, as listed (a v1 resource names none).
  public var productIds: [String]
  public var obfuscatedExternalAccountId: String?

  /// The purchase token the mapping is given: the resource does not carry its own.
  static let purchaseToken = "inspect"

  /// A subscriptionsv2 resource at `atMs`.
  public init(resource: SubscriptionPurchaseV2, atMs: Int64) {
    let mapping = GooglePlayMapping(
      subscription: resource, purchaseToken: Self.purchaseToken, packageName: "", asOfMs: atMs)
    let evaluation = SubscriptionLifecycle.evaluate(mapping.history, at: atMs)
    let items = resource.lineItems ?? []
    // A partial body with no period to evaluate is in the state it names (PAUSED is paused, not
    // expired); it still grants nothing (`entitled`), and `inspect` says why.
    if mapping.history.transactions.isEmpty, let named = resource.typedSubscriptionState?.namedState {
      state = named
    } else {
      state = evaluation.state
    }
    entitled = evaluation.isEntitled
    expiresAtMs = items.compactMap(\.expiryTime).max()
    autoRenew = mapping.history.renewalInfo?.willAutoRenew ?? false
    acknowledged = mapping.history.renewalInfo?.isAcknowledged
    testPurchase = resource.isTestPurchase
    environment = mapping.history.environment
    linkedPurchaseToken = resource.linkedPurchaseToken
    productIds = items.compactMap(\.productId)
    obfuscatedExternalAccountId = resource.externalAccountIdentifiers?.obfuscatedExternalAccountId
  }

  /// A v1 `purchases.subscriptions` resource at `atMs`.
  public init(legacy resource: SubscriptionPurchase, atMs: Int64) {
    let history = resource.history(purchaseToken: Self.purchaseToken, atMs: atMs)
    let evaluation = SubscriptionLifecycle.evaluate(history, at: atMs)
    state = evaluation.state
    entitled = evaluation.isEntitled
    expiresAtMs = resource.expiryTimeMillis
    autoRenew = resource.autoRenewing ?? false
    acknowledged = resource.isAcknowledged
    testPurchase = resource.isTestPurchase
    environment = history.environment
    linkedPurchaseToken = resource.linkedPurchaseToken
    productIds = []
    obfuscatedExternalAccountId = resource.obfuscatedExternalAccountId
  }

  /// The summary as `inspect` prints it.
  public var jsonObject: [String: Any] {
    [
      "state": state.rawValue, "entitled": entitled, "expiresAtMs": GooglePlayInspection.orNull(expiresAtMs),
      "autoRenew": autoRenew, "acknowledged": GooglePlayInspection.orNull(acknowledged),
      "testPurchase": testPurchase, "environment": environment.rawValue,
      "linkedPurchaseToken": GooglePlayInspection.orNull(linkedPurchaseToken), "productIds": productIds,
      "obfuscatedExternalAccountId": GooglePlayInspection.orNull(obfuscatedExternalAccountId),
    ]
  }
}

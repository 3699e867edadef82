/// Turns computed subscription states into the `EntitlementRecord` rows the service indexes.
public enum EntitlementMapping {
  /// The records one subscription grants `userId`: one per entitlement its product unlocks.
  /// An unconfigured product grants nothing.
  ///
  /// `accessEndsAtMs` is the evaluation's: the expiry, the grace period end while in grace, or
  /// expiry + renewal leeway while auto-renew is on; never after the moment access ended for a
  /// state without access.
  /// `replaces`: the purchases this one replaced (`ReplacementChains`), kept on each record.
  public static func records(
    userId: String, subscription: SubscriptionEvaluation, config: ProductCatalog, verifiedAtMs: Int64,
    replaces: [String] = []
  ) -> [EntitlementRecord] {
    config.entitlements(forProduct: subscription.productId, store: subscription.store).map { entitlement in
      EntitlementRecord(
        userId: userId,
        entitlement: entitlement,
        source: subscription.source,
        store: subscription.store,
        productId: subscription.productId,
        environment: subscription.environment,
        state: subscription.state,
        willRenew: subscription.willRenew,
        expiresAtMs: subscription.expiresAtMs,
        accessEndsAtMs: subscription.accessEndsAtMs,
        verifiedAtMs: verifiedAtMs,
        reason: subscription.reason,
        replaces: replaces)
    }
  }

  /// Every record for a user: evaluates each history at `nowMs` (after linking replacements)
  /// and adds the promotional grants.
  public static func records(
    userId: String, histories: [SubscriptionHistory], grants: [PromotionalGrant], config: ProductCatalog,
    nowMs: Int64
  ) -> [EntitlementRecord] {
    let subscriptions = SubscriptionReplacements.resolve(histories).map { config.evaluate($0, at: nowMs) }
    let chains = ReplacementChains(histories)
    let fromStores = subscriptions.flatMap {
      records(
        userId: userId, subscription: $0, config: config, verifiedAtMs: nowMs,
        replaces: chains.replaced(by: $0.purchaseId, store: $0.store))
    }
    let fromGrants = grants.filter { $0.userId == userId }.map { $0.entitlementRecord(verifiedAtMs: nowMs) }
    return fromStores + fromGrants
  }
}

/// One entitlement of a user, answered across every store and grant.
public struct EntitlementSummary: Sendable, Hashable, Codable {
  public var entitlement: String
  /// Whether the user has it now (entitled state, access not ended).
  public var isActive: Bool
  /// The access level the granting record's state gives under the policy.
  public var accessLevel: AccessLevel
  /// The state of the granting record at evaluation time.
  public var state: SubscriptionState
  /// The latest access end among the records that grant it now, or of the best record.
  public var accessEndsAtMs: Int64
  /// The latest store expiry among the records that grant it now, or of the best record.
  public var expiresAtMs: Int64
  /// The record that grants it (`EntitlementRecord.source`) and its product and store.
  public var source: String
  public var productId: String
  public var store: Store
  public var willRenew: Bool

  public init(
    entitlement: String, isActive: Bool, accessLevel: AccessLevel, state: SubscriptionState,
    accessEndsAtMs: Int64, expiresAtMs: Int64, source: String, productId: String, store: Store, willRenew: Bool
  ) {
    self.entitlement = entitlement
    self.isActive = isActive
    self.accessLevel = accessLevel
    self.state = state
    self.accessEndsAtMs = accessEndsAtMs
    self.expiresAtMs = expiresAtMs
    self.source = source
    self.productId = productId
    self.store = store
    self.willRenew = willRenew
  }
}

/// Entitlement evaluation across all of a user's records.
public enum UserEntitlements {
  /// One summary per entitlement, sorted by entitlement. The best record (active first, then
  /// longest access, then most recently verified) grants it; an inactive entitlement is still
  /// listed, with the state that ended it.
  public static func evaluate(
    _ records: [EntitlementRecord], at nowMs: Int64, accessLevels: AccessLevelPolicy = .defaults
  ) -> [EntitlementSummary] {
    let byEntitlement = Dictionary(grouping: records, by: \.entitlement)
    return byEntitlement.keys.sorted().compactMap { entitlement in
      let candidates = byEntitlement[entitlement] ?? []
      guard let best = candidates.bestEvaluation(at: nowMs) else { return nil }
      let granting = candidates.filter { $0.evaluated(at: nowMs).active }
      let pool = best.active ? granting : [best.record]
      return EntitlementSummary(
        entitlement: entitlement,
        isActive: best.active,
        accessLevel: accessLevels.level(for: best),
        state: best.state,
        accessEndsAtMs: pool.map(\.accessEndsAtMs).max() ?? best.record.accessEndsAtMs,
        expiresAtMs: pool.map(\.expiresAtMs).max() ?? best.record.expiresAtMs,
        source: best.record.source,
        productId: best.record.productId,
        store: best.record.store,
        willRenew: best.record.willRenew)
    }
  }
}

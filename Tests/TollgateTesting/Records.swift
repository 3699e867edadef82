import TollgateCore

extension EntitlementRecord {
  /// A record for tests: an App Store subscription of `userId` granting `entitlement`.
  public static func sample(
    userId: String, entitlement: String = "premium", source: String? = nil, state: SubscriptionState = .active,
    productId: String = "monthly", expiresAtMs: Int64, accessEndsAtMs: Int64? = nil, verifiedAtMs: Int64 = 1,
    willRenew: Bool = true, store: Store = .appStore, environment: StoreEnvironment = .production
  ) -> EntitlementRecord {
    EntitlementRecord(
      userId: userId, entitlement: entitlement, source: source ?? "\(store.rawValue):otx-\(userId)", store: store,
      productId: productId, environment: environment, state: state, willRenew: willRenew, expiresAtMs: expiresAtMs,
      accessEndsAtMs: accessEndsAtMs ?? expiresAtMs, verifiedAtMs: verifiedAtMs)
  }
}

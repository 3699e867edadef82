/// The operator's configuration of the domain: apps, products, entitlements, groups and
/// policies. Decoded from JSON by the executable; every field may be left out and takes its
/// default. Call `validate()` before use.
public struct ProductCatalog: Sendable, Hashable, Codable {
  /// The apps Tollgate accepts purchases for, per store.
  public var apps: [AppConfig]
  /// The entitlements products can unlock.
  public var entitlements: [EntitlementDefinition]
  /// Which entitlements each product unlocks.
  public var products: [ProductConfig]
  /// Subscription groups: products a user holds one of at a time, ranked by level.
  public var subscriptionGroups: [SubscriptionGroup]
  /// Grace and late-renewal policy.
  public var gracePolicy: GracePolicy
  /// What happens when a store purchase already bound to one user is claimed by another.
  public var transferPolicy: TransferPolicy
  /// The access level each state grants.
  public var accessLevels: AccessLevelPolicy

  public init(
    apps: [AppConfig] = [],
    entitlements: [EntitlementDefinition] = [],
    products: [ProductConfig] = [],
    subscriptionGroups: [SubscriptionGroup] = [],
    gracePolicy: GracePolicy = .defaults,
    transferPolicy: TransferPolicy = .keepWithOriginalOwner,
    accessLevels: AccessLevelPolicy = .defaults
  ) {
    self.apps = apps
    self.entitlements = entitlements
    self.products = products
    self.subscriptionGroups = subscriptionGroups
    self.gracePolicy = gracePolicy
    self.transferPolicy = transferPolicy
    self.accessLevels = accessLevels
  }

  /// An empty configuration with default policies.
  public static var defaults: ProductCatalog { ProductCatalog() }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      apps: try c.decodeIfPresent([AppConfig].self, forKey: .apps) ?? [],
      entitlements: try c.decodeIfPresent([EntitlementDefinition].self, forKey: .entitlements) ?? [],
      products: try c.decodeIfPresent([ProductConfig].self, forKey: .products) ?? [],
      subscriptionGroups: try c.decodeIfPresent([SubscriptionGroup].self, forKey: .subscriptionGroups)
        ?? [],
      gracePolicy: try c.decodeIfPresent(GracePolicy.self, forKey: .gracePolicy) ?? .defaults,
      transferPolicy: try c.decodeIfPresent(TransferPolicy.self, forKey: .transferPolicy)
        ?? .keepWithOriginalOwner,
      accessLevels: try c.decodeIfPresent(AccessLevelPolicy.self, forKey: .accessLevels) ?? .defaults
    )
  }

  /// The entitlements `productId` unlocks on `store`: products configured for that store, then
  /// products configured for every store. Empty for an unknown product.
  public func entitlements(forProduct productId: String, store: Store) -> [String] {
    var seen: Set<String> = []
    return configs(forProduct: productId, store: store).flatMap(\.entitlements).filter { seen.insert($0).inserted }
  }

  /// How long a purchase of `productId` on `store` without a store expiry grants: the product's
  /// `duration`, looked up as `entitlements(forProduct:store:)` looks up its entitlements.
  public func term(forProduct productId: String, store: Store) -> ProductTerm? {
    configs(forProduct: productId, store: store).lazy.compactMap(\.duration).first
  }

  /// The rows that configure `productId` on `store`: those for that store, else those for every
  /// store.
  private func configs(forProduct productId: String, store: Store) -> [ProductConfig] {
    let exact = products.filter { $0.productId == productId && $0.store == store }
    return exact.isEmpty ? products.filter { $0.productId == productId && $0.store == nil } : exact
  }

  /// The group `productId` belongs to on `store`, if any.
  public func group(containing productId: String, store: Store) -> SubscriptionGroup? {
    subscriptionGroups.first { group in
      (group.store == nil || group.store == store) && group.products.contains { $0.productId == productId }
    }
  }
}

/// An app in one store. Exactly the identifier of its store is set.
public struct AppConfig: Sendable, Hashable, Codable {
  /// The operator's name for the app.
  public var id: String
  public var store: Store
  /// Apple bundle id (`bundleId`).
  public var bundleId: String?
  /// Google Play `packageName`.
  public var packageName: String?
  /// Amazon Appstore app (its package name or app id, as the operator's RVS calls use it).
  public var amazonAppId: String?

  public init(
    id: String, store: Store, bundleId: String? = nil, packageName: String? = nil, amazonAppId: String? = nil
  ) {
    self.id = id
    self.store = store
    self.bundleId = bundleId
    self.packageName = packageName
    self.amazonAppId = amazonAppId
  }

  /// The identifier the store knows the app by.
  public var storeAppId: String? {
    switch store {
    case .appStore: bundleId
    case .googlePlay: packageName
    case .amazon: amazonAppId
    case .promotional: nil
    }
  }
}

/// An entitlement: a capability the app checks (`pro`, `no_ads`).
public struct EntitlementDefinition: Sendable, Hashable, Codable {
  public var id: String
  public var description: String?

  public init(id: String, description: String? = nil) {
    self.id = id
    self.description = description
  }
}

/// A product and the entitlements it unlocks. One product may unlock several entitlements and
/// several products the same one.
public struct ProductConfig: Sendable, Hashable, Codable {
  public var productId: String
  /// The store the product id belongs to; `nil` when the id is the same on every store.
  public var store: Store?
  public var entitlements: [String]
  /// How long a purchase the store gives no expiry for grants (a non-renewing subscription, a
  /// one-time product): a calendar duration from the purchase, or `lifetime`. Such a purchase of a
  /// product without one grants nothing (`StateReason.durationNotConfigured`). Subscriptions the
  /// store renews carry their own expiry and ignore it.
  public var duration: ProductTerm?

  public init(productId: String, store: Store? = nil, entitlements: [String], duration: ProductTerm? = nil) {
    self.productId = productId
    self.store = store
    self.entitlements = entitlements
    self.duration = duration
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      productId: try c.decode(String.self, forKey: .productId),
      store: try c.decodeIfPresent(Store.self, forKey: .store),
      entitlements: try c.decodeIfPresent([String].self, forKey: .entitlements) ?? [],
      duration: try c.decodeIfPresent(ProductTerm.self, forKey: .duration)
    )
  }
}

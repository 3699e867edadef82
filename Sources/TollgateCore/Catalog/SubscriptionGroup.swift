/// Products a user holds one of at a time (Apple subscription group, a Google base subscription
/// with its plans, an Amazon parent product with its tiers), ranked for upgrade and downgrade.
public struct SubscriptionGroup: Sendable, Hashable, Codable {
  public var id: String
  /// The store the group belongs to; `nil` when it applies on every store.
  public var store: Store?
  public var products: [Member]

  public init(id: String, store: Store? = nil, products: [Member]) {
    self.id = id
    self.store = store
    self.products = products
  }

  /// A product of the group and its level. As in App Store Connect, level 1 is the highest
  /// service level; moving to a smaller number is an upgrade.
  public struct Member: Sendable, Hashable, Codable {
    public var productId: String
    public var level: Int

    public init(productId: String, level: Int) {
      self.productId = productId
      self.level = level
    }
  }

  /// The level of `productId` in this group.
  public func level(of productId: String) -> Int? {
    products.first { $0.productId == productId }?.level
  }
}

/// How long access lasts past the end of a paid period.
public struct GracePolicy: Sendable, Hashable, Codable {
  /// How late a renewal may land while auto-renew is on before access is cut. Renewals may land
  /// up to a day late; 0 cuts access at expiry.
  public var renewalLeewayMs: Int64
  /// Whether a store billing grace period grants access. When `false`, grace reads as billing
  /// retry.
  public var honorStoreGracePeriod: Bool

  public init(renewalLeewayMs: Int64 = 86_400_000, honorStoreGracePeriod: Bool = true) {
    self.renewalLeewayMs = renewalLeewayMs
    self.honorStoreGracePeriod = honorStoreGracePeriod
  }

  /// One day of renewal leeway, store grace periods honored.
  public static var defaults: GracePolicy { GracePolicy() }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let defaults = GracePolicy.defaults
    self.init(
      renewalLeewayMs: try c.decodeIfPresent(Int64.self, forKey: .renewalLeewayMs) ?? defaults.renewalLeewayMs,
      honorStoreGracePeriod: try c.decodeIfPresent(Bool.self, forKey: .honorStoreGracePeriod)
        ?? defaults.honorStoreGracePeriod
    )
  }
}

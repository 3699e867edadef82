/// What a paywall may offer one product: can the user buy it, and with a trial or intro offer?
public struct OfferEligibility: Sendable, Hashable, Codable {
  public var productId: String
  public var groupId: String
  public var store: Store
  /// Whether buying it now makes sense: `false` while the user already holds this product.
  public var canPurchase: Bool
  /// What buying it would be for the user.
  public var purchaseKind: PurchaseKind
  /// Whether the store would apply an introductory offer or free trial.
  public var introOfferEligible: Bool

  public init(
    productId: String, groupId: String, store: Store, canPurchase: Bool, purchaseKind: PurchaseKind,
    introOfferEligible: Bool
  ) {
    self.productId = productId
    self.groupId = groupId
    self.store = store
    self.canPurchase = canPurchase
    self.purchaseKind = purchaseKind
    self.introOfferEligible = introOfferEligible
  }
}

/// What a purchase would be, given what the user holds in the group.
public enum PurchaseKind: String, Sendable, Hashable, Codable, CaseIterable {
  /// Nothing in the group is active: a new subscription (or a resubscription).
  case new
  /// The user already holds this product.
  case current
  case upgrade
  case downgrade
  case crossgrade
}

/// Trial and intro-offer eligibility per subscription group, derived from history.
///
/// - App Store: eligible unless a period in the group was bought with an introductory offer
///   (free trial included): Apple "Implementing introductory offers in your app" and the
///   `is_trial_period` / `is_in_intro_offer_period` receipt fields.
/// - Google Play: eligible unless the user ever had a subscription in the group, Google's
///   default "new customer acquisition: never had this subscription" offer criterion.
/// - Amazon Appstore: eligible unless the user ever had a subscription in the group; free trials
///   go to new subscribers only.
public enum Eligibility {
  /// Eligibility for every product of every group of `store` in `config`, in config order.
  ///
  /// - Parameter histories: the user's histories (any store; other stores' are ignored).
  public static func offers(
    store: Store, histories: [SubscriptionHistory], config: ProductCatalog, at nowMs: Int64
  ) -> [OfferEligibility] {
    let mine = SubscriptionReplacements.resolve(histories.filter { $0.store == store })
    let current = mine.map { config.evaluate($0, at: nowMs) }.filter(\.isEntitled)
    var result: [OfferEligibility] = []
    for group in config.subscriptionGroups where group.store == nil || group.store == store {
      let products = Set(group.products.map(\.productId))
      let transactions = mine.flatMap(\.transactions).filter {
        products.contains($0.productId) || $0.subscriptionGroupIdentifier == group.id
      }
      let eligible: Bool =
        switch store {
        case .appStore: !transactions.contains { $0.offerType == .introductory || $0.isFreeTrial }
        case .googlePlay, .amazon, .promotional: transactions.isEmpty
        }
      let held = current.first { products.contains($0.productId) }
      for member in group.products {
        let kind: PurchaseKind
        if let held {
          if held.productId == member.productId {
            kind = .current
          } else {
            let change = ProductChange(from: held.productId, to: member.productId, store: store, groups: [group])
            kind = change.kind.map { PurchaseKind(rawValue: $0.rawValue) ?? .crossgrade } ?? .crossgrade
          }
        } else {
          kind = .new
        }
        result.append(
          OfferEligibility(
            productId: member.productId, groupId: group.id, store: store, canPurchase: kind != .current,
            purchaseKind: kind, introOfferEligible: eligible))
      }
    }
    return result
  }
}

/// One item of a subscriptionsv2 resource (`SubscriptionPurchaseLineItem`): a product with its
/// own expiry and plan.
public struct SubscriptionPurchaseLineItem: Sendable, Hashable, Decodable {
  public var productId: String?
  /// When this item expired or will expire unless renewed; `nil` when Google leaves it out.
  @GoogleTime public var expiryTime: Int64?
  /// Set for an auto-renewing item.
  public var autoRenewingPlan: AutoRenewingPlan?
  /// Set for a prepaid item.
  public var prepaidPlan: PrepaidPlan?
  public var offerDetails: OfferDetails?
  /// The offer phase the item is in now (free trial, introductory, base, proration).
  public var offerPhase: OfferPhase?
  /// A scheduled replacement (a deferred downgrade or crossgrade) at the next renewal.
  public var deferredItemReplacement: DeferredItemReplacement?
  /// The item this one replaced.
  public var itemReplacement: ItemReplacement?
  public var deferredItemRemoval: Marker?
  public var latestSuccessfulOrderId: String?

  public init() {}
}

/// `autoRenewingPlan`.
public struct AutoRenewingPlan: Sendable, Hashable, Decodable {
  /// Absent means false (Google omits it when the user canceled).
  public var autoRenewEnabled: Bool?
  public var recurringPrice: Money?
  public var priceChangeDetails: SubscriptionItemPriceChangeDetails?
  public var priceStepUpConsentDetails: PriceStepUpConsentDetails?
  public var installmentDetails: InstallmentPlan?
}

/// `priceChangeDetails`.
public struct SubscriptionItemPriceChangeDetails: Sendable, Hashable, Decodable {
  public var newPrice: Money?
  /// Raw `priceChangeMode`: PRICE_DECREASE, PRICE_INCREASE, OPT_OUT_PRICE_INCREASE.
  public var priceChangeMode: String?
  /// Raw `priceChangeState`: OUTSTANDING, CONFIRMED, APPLIED, CANCELED.
  public var priceChangeState: String?
  @GoogleTime public var expectedNewPriceChargeTime: Int64?
}

/// `priceStepUpConsentDetails`: a price step-up that needs the user's consent.
public struct PriceStepUpConsentDetails: Sendable, Hashable, Decodable {
  /// Raw `state`, e.g. PENDING.
  public var state: String?
  @GoogleTime public var consentDeadlineTime: Int64?
  public var newPrice: Money?
}

/// `installmentDetails`: a subscription paid in committed installments.
public struct InstallmentPlan: Sendable, Hashable, Decodable {
  public var initialCommittedPaymentsCount: Int?
  public var subsequentCommittedPaymentsCount: Int?
  public var remainingCommittedPaymentsCount: Int?
  public var pendingCancellation: Marker?
}

/// `prepaidPlan`.
public struct PrepaidPlan: Sendable, Hashable, Decodable {
  /// From when the user may top up this prepaid plan.
  @GoogleTime public var allowExtendAfterTime: Int64?
}

/// `offerDetails`.
public struct OfferDetails: Sendable, Hashable, Decodable {
  public var basePlanId: String?
  /// `nil` for the base plan.
  public var offerId: String?
  public var offerTags: [String]?
}

/// `offerPhase`: exactly one member is present.
public struct OfferPhase: Sendable, Hashable, Decodable {
  public var freeTrial: Marker?
  public var introductoryPrice: Marker?
  public var basePrice: Marker?
  public var prorationPeriod: ProrationPeriod?
}

/// `offerPhase.prorationPeriod`.
public struct ProrationPeriod: Sendable, Hashable, Decodable {
  /// Raw `originalOfferPhaseType`.
  public var originalOfferPhaseType: String?
}

/// `deferredItemReplacement`.
public struct DeferredItemReplacement: Sendable, Hashable, Decodable {
  public var productId: String?
}

/// `itemReplacement`.
public struct ItemReplacement: Sendable, Hashable, Decodable {
  public var productId: String?
  /// Raw `replacementMode`, e.g. CHARGE_PRORATED_PRICE.
  public var replacementMode: String?
  public var basePlanId: String?
  public var offerId: String?
}

import TollgateCore

extension RenewalInfo {
  /// The renewal side of a subscriptionsv2 resource, read from its principal line item (the
  /// auto-renewing item with the latest expiry, else the item with the latest expiry; on a tie,
  /// the one Google lists first, the base item before its add-ons).
  public init(googlePlay resource: SubscriptionPurchaseV2) {
    let items = resource.lineItems ?? []
    let principal = Self.latest(items.filter { $0.autoRenewingPlan != nil }) ?? Self.latest(items)
    let plan = principal?.autoRenewingPlan
    let state = resource.typedSubscriptionState
    let latestExpiry = items.compactMap(\.expiryTime).max()
    self.init(
      willAutoRenew: plan?.autoRenewEnabled ?? false,
      autoRenewProductId: principal?.deferredItemReplacement?.productId,
      expirationIntent: resource.canceledStateContext.flatMap(ExpirationIntent.init(googlePlay:)),
      // Google reports the end of the grace period as the line item's expiryTime.
      gracePeriodExpiresDateMs: state == .inGracePeriod ? latestExpiry : nil,
      priceIncreaseStatus: plan.flatMap(PriceIncreaseStatus.init(googlePlay:)),
      googlePlayState: state,
      autoResumeTimeMs: resource.pausedStateContext?.autoResumeTime,
      isAcknowledged: resource.typedAcknowledgementState.flatMap(\.isAcknowledged))
  }
}

extension RenewalInfo {
  /// The item with the latest expiry, the first listed on a tie.
  fileprivate static func latest(_ items: [SubscriptionPurchaseLineItem]) -> SubscriptionPurchaseLineItem? {
    var best: SubscriptionPurchaseLineItem?
    for item in items where best == nil || (item.expiryTime ?? Int64.min) > (best?.expiryTime ?? Int64.min) {
      best = item
    }
    return best
  }
}

extension AcknowledgementState {
  /// `nil` for UNSPECIFIED.
  var isAcknowledged: Bool? {
    switch self {
    case .acknowledged: true
    case .pending: false
    case .unspecified: nil
    }
  }
}

extension ExpirationIntent {
  /// Who canceled: the user, the system (billing), the developer, or a replacement.
  public init?(googlePlay context: CanceledStateContext) {
    if context.userInitiatedCancellation != nil {
      self = .customerCanceled
    } else if context.systemInitiatedCancellation != nil {
      self = .billingError
    } else if context.replacementCancellation != nil {
      self = .replaced
    } else if context.developerInitiatedCancellation != nil {
      self = .other
    } else {
      return nil
    }
  }
}

extension PriceIncreaseStatus {
  /// `priceChangeDetails.priceChangeState` OUTSTANDING waits for consent, CONFIRMED and APPLIED
  /// are agreed; otherwise a `priceStepUpConsentDetails.state` of PENDING waits for consent.
  public init?(googlePlay plan: AutoRenewingPlan) {
    switch plan.priceChangeDetails?.priceChangeState {
    case "OUTSTANDING":
      self = .pending
      return
    case "CONFIRMED", "APPLIED":
      self = .agreed
      return
    default:
      break
    }
    switch plan.priceStepUpConsentDetails?.state {
    case "PENDING", "CONSENT_STATE_PENDING": self = .pending
    case "CONFIRMED", "CONSENT_STATE_CONFIRMED": self = .agreed
    default: return nil
    }
  }
}

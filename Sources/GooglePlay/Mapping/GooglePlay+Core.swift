import TollgateCore

extension GooglePlayMapping {
  /// Maps a `purchases.subscriptionsv2` resource of `purchaseToken`, read at `asOfMs`.
  ///
  /// Each line item with a product and an expiry becomes one period, named by its latest
  /// successful order (`GPA.…..N`), from `startTime` to `expiryTime`. Its offer phase gives the
  /// offer type, `testPurchase` the sandbox environment, and the auto-renewing item with the
  /// latest expiry the renewal info. An entitling state with no expiry anywhere, or a state
  /// Tollgate does not know, gives no periods and grants nothing.
  public init(subscription resource: SubscriptionPurchaseV2, purchaseToken: String, packageName: String, asOfMs: Int64)
  {
    var notes: [GooglePlayMappingNote] = []
    if resource.$lineItems.droppedCount > 0 {
      notes.append(.undecodableLineItems(count: resource.$lineItems.droppedCount))
    }
    let state = resource.typedSubscriptionState

    var transactions: [StoreTransaction] = []
    switch (resource.subscriptionState, state) {
    case (let raw?, nil):
      notes.append(.unknownSubscriptionState(raw))
    case (let raw?, .pending?), (let raw?, .pendingPurchaseCanceled?):
      notes.append(.notPaid(subscriptionState: raw))
    default:
      transactions = Self.periods(of: resource, purchaseToken: purchaseToken, asOfMs: asOfMs, notes: &notes)
      if transactions.isEmpty, state?.entitles ?? true {
        notes.append(.entitlingStateWithoutExpiry(subscriptionState: resource.subscriptionState))
      }
    }

    let history = SubscriptionHistory(
      store: .googlePlay,
      purchaseId: purchaseToken,
      environment: resource.isTestPurchase ? .sandbox : .production,
      transactions: transactions,
      renewalInfo: RenewalInfo(googlePlay: resource),
      linkedPurchaseToken: resource.linkedPurchaseToken,
      asOfMs: asOfMs)
    self.init(
      packageName: packageName, history: history,
      obfuscatedExternalAccountId: resource.externalAccountIdentifiers?.obfuscatedExternalAccountId, notes: notes)
  }

  /// One period per line item that has a product and an expiry.
  private static func periods(
    of resource: SubscriptionPurchaseV2, purchaseToken: String, asOfMs: Int64, notes: inout [GooglePlayMappingNote]
  ) -> [StoreTransaction] {
    let items = resource.lineItems ?? []
    if resource.startTime == nil, items.contains(where: { $0.expiryTime != nil }) { notes.append(.withoutStartTime) }
    let orderIds = items.map { $0.latestSuccessfulOrderId ?? (items.count == 1 ? resource.latestOrderId : nil) }
    let cutAtRead = resource.typedSubscriptionState?.endsAccess ?? false
    var result: [StoreTransaction] = []
    for (item, orderId) in zip(items, orderIds) {
      guard let productId = item.productId else {
        notes.append(.lineItemWithoutProductId)
        continue
      }
      guard var expiry = item.expiryTime else {
        notes.append(.lineItemWithoutExpiry(productId: productId))
        continue
      }
      if cutAtRead, expiry > asOfMs {
        expiry = asOfMs
        notes.append(.expiryCutAtRead(productId: productId))
      }
      // Several items bought in one order share its id; each period still needs its own.
      let shared = orderId.map { id in orderIds.filter { $0 == id }.count > 1 } ?? false
      let transactionId =
        switch (orderId, shared) {
        case (let id?, false): id
        case (let id?, true): "\(id)|\(productId)"
        case (nil, _): "\(purchaseToken)|\(productId)"
        }
      let offer = OfferPhaseMapping(item.offerPhase)
      // Google reports the plan's recurring price: what a period at the regular price costs.
      let price = offer.offerType == nil ? item.autoRenewingPlan?.recurringPrice : nil
      result.append(
        StoreTransaction(
          transactionId: transactionId,
          productId: productId,
          purchaseDateMs: resource.startTime ?? min(asOfMs, expiry),
          expiresDateMs: expiry,
          offerType: offer.offerType,
          offerDiscountType: offer.discountType,
          priceMilli: price?.amountMicros.map { $0 / 1_000 },
          currency: price?.currencyCode,
          storefront: resource.regionCode))
    }
    return result
  }
}

extension GooglePlaySubscriptionState {
  /// States in which Google keeps the user's access until the expiry.
  var entitles: Bool {
    switch self {
    case .active, .inGracePeriod, .canceled, .unspecified: true
    case .pending, .paused, .onHold, .expired, .pendingPurchaseCanceled: false
    }
  }

  /// The unified state this subscriptionState names by itself, for a resource with no period to
  /// evaluate (no line item with an expiry): PAUSED is paused, ON_HOLD on hold, whatever else the
  /// body lacks. `nil` for states that need an expiry to mean anything (CANCELED, PENDING, …).
  public var namedState: SubscriptionState? {
    switch self {
    case .active: .active
    case .inGracePeriod: .gracePeriod
    case .onHold: .onHold
    case .paused: .paused
    case .expired: .expired
    case .canceled, .pending, .pendingPurchaseCanceled, .unspecified: nil
    }
  }

  /// States in which the user has no access now, whatever the expiry says.
  var endsAccess: Bool {
    switch self {
    case .expired, .onHold, .paused, .pendingPurchaseCanceled: true
    case .active, .inGracePeriod, .canceled, .pending, .unspecified: false
    }
  }
}

/// A line item's `offerPhase` in Core's terms: free trial and introductory price are
/// introductory offers; base price and proration periods are the regular price.
struct OfferPhaseMapping {
  var offerType: OfferType?
  var discountType: OfferDiscountType?

  init(_ phase: OfferPhase?) {
    if phase?.freeTrial != nil {
      offerType = .introductory
      discountType = .freeTrial
    } else if phase?.introductoryPrice != nil {
      offerType = .introductory
      discountType = .payAsYouGo
    }
  }
}

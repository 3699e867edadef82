import TollgateCore

/// Builds a plausible subscription history from a list of random numbers, so property tests can
/// generate histories with the library's integer generators (and shrink them).
///
/// Plausible means within the stores' documented bounds: periods of 7 to 60 days, grace periods
/// of at most 6 days shorter than any period (Apple's 3/6-day options for weekly plans), a renewal
/// leeway of at most a day.
struct Scenario: Sendable, CustomStringConvertible {
  var history: SubscriptionHistory
  var now: Int64
  var policy: GracePolicy

  var description: String { "now=\(now) policy=\(policy) history=\(history)" }

  init(_ numbers: [Int]) {
    var cursor = 0
    func next(_ range: ClosedRange<Int>) -> Int {
      defer { cursor += 1 }
      let raw = numbers.isEmpty ? 0 : abs(numbers[cursor % numbers.count] &+ cursor)
      return range.lowerBound + raw % (range.upperBound - range.lowerBound + 1)
    }
    let store = [Store.appStore, .googlePlay, .amazon][next(0...2)]
    let count = next(1...5)
    var transactions: [StoreTransaction] = []
    var start = d(0)
    let products = ["pro_monthly", "pro_yearly", "premium"]
    for index in 0..<count {
      let length = Int64(next(7...60)) * day
      let offer: (OfferType?, OfferDiscountType?) =
        switch next(0...5) {
        case 0: (.introductory, .freeTrial)
        case 1: (.introductory, .payAsYouGo)
        case 2: (.promotional, .payUpFront)
        default: (nil, nil)
        }
      let revoked = next(0...7) == 0
      transactions.append(
        StoreTransaction(
          transactionId: "t\(index)", productId: products[next(0...2)], purchaseDateMs: start,
          expiresDateMs: start + length, offerType: offer.0, offerDiscountType: offer.1,
          revocationDateMs: revoked ? start + Int64(next(0...6)) * day : nil,
          revocationReason: revoked ? .refunded : nil,
          isUpgraded: store == .appStore && next(0...9) == 0,
          ownershipType: next(0...4) == 0 ? .familyShared : .purchased))
      // Mostly back to back; sometimes a gap (resubscribe), sometimes an overlap (upgrade).
      switch next(0...5) {
      case 0: start += length + Int64(next(1...20)) * day
      case 1: start += length / 2
      default: start += length
      }
    }
    let googleStates: [GooglePlaySubscriptionState?] = [
      nil, .active, .canceled, .inGracePeriod, .onHold, .paused, .expired,
    ]
    let lastEnd = transactions.map(\.expiresDateMs).max() ?? start
    let grace = next(0...2) == 0 ? lastEnd + Int64(next(1...6)) * day : nil
    let renewal = RenewalInfo(
      willAutoRenew: next(0...2) != 0,
      autoRenewProductId: next(0...3) == 0 ? products[next(0...2)] : nil,
      expirationIntent: next(0...3) == 0 ? ExpirationIntent.allCases[next(0...5)] : nil,
      isInBillingRetryPeriod: next(0...3) == 0,
      gracePeriodExpiresDateMs: grace,
      priceIncreaseStatus: next(0...4) == 0 ? .pending : nil,
      googlePlayState: store == .googlePlay ? googleStates[next(0...6)] : nil,
      autoResumeTimeMs: store == .googlePlay ? lastEnd + Int64(next(1...30)) * day : nil,
      cancelDateMs: store == .amazon && next(0...3) == 0 ? d(0) + Int64(next(0...200)) * day : nil)
    self.history = SubscriptionHistory(
      store: store, purchaseId: "p-1", environment: next(0...3) == 0 ? .sandbox : .production,
      transactions: transactions, renewalInfo: next(0...5) == 0 ? nil : renewal)
    self.now = d(0) + Int64(next(0...250)) * day + Int64(next(0...23)) * 3_600_000
    self.policy = GracePolicy(
      renewalLeewayMs: Int64(next(0...24)) * 3_600_000, honorStoreGracePeriod: next(0...3) != 0)
  }

  func evaluate(_ history: SubscriptionHistory? = nil, at moment: Int64? = nil) -> SubscriptionEvaluation {
    SubscriptionLifecycle.evaluate(
      history ?? self.history, at: moment ?? now, policy: policy, groups: catalog.subscriptionGroups)
  }
}

import AmazonAppstore
import Testing
import TollgateCore

/// The Amazon rules of docs/lifecycle.md on hand-made receipts (days from 0).
@Suite("Mapping Amazon's rules")
struct MappingRulesTests {
  static func subscription(
    _ id: String = "r1", sku: String = "pro_monthly", user: String? = "amzn1.user", parent: String? = "pro",
    from: Int64 = 0, to: Int64? = 30, autoRenewing: Bool = true, cancel: Int64? = nil, reason: Int? = nil,
    trialEnd: Int64? = nil, grace: Int64? = nil, deferredSku: String? = nil, deferredDate: Int64? = nil,
    promotions: [RVSPromotion]? = nil
  ) -> RVSReceipt {
    RVSReceipt(
      receiptId: id, userId: user, productType: "SUBSCRIPTION", productId: "pro_parent_sku", parentProductId: parent,
      term: "1 Month", termSku: sku, purchaseDate: from * dayMs, renewalDate: to.map { $0 * dayMs },
      cancelDate: cancel.map { $0 * dayMs }, cancelReason: reason, autoRenewing: autoRenewing,
      freeTrialEndDate: trialEnd.map { $0 * dayMs }, gracePeriodEndDate: grace.map { $0 * dayMs },
      deferredSku: deferredSku, deferredDate: deferredDate.map { $0 * dayMs }, testTransaction: false,
      promotions: promotions)
  }

  static func map(_ receipts: [RVSReceipt], asOf: Int64, environment: StoreEnvironment = .production)
    -> AmazonMapping
  {
    AmazonMapping(receipts: receipts, chainId: "r1", environment: environment, asOfMs: asOf * dayMs)
  }

  @Test("a past cancelDate inside the term (customer service) ends access from then: revoked")
  func cancelInsideTerm() {
    let mapping = Self.map([Self.subscription(autoRenewing: false, cancel: 20, reason: 1)], asOf: 21)
    let state = evaluate(mapping, at: 21 * dayMs)
    #expect(state.state == .revoked)
    #expect(state.reason == .refunded)
    #expect(state.accessEndsAtMs <= 20 * dayMs)
  }

  @Test("a cancelDate still ahead keeps access until then, and ends it then")
  func cancelAhead() {
    let mapping = Self.map([Self.subscription(autoRenewing: false, cancel: 20, reason: 1)], asOf: 10)
    #expect(mapping.notes.contains(.cancelDateAhead(receiptId: "r1", cancelDate: 20 * dayMs)))
    let before = evaluate(mapping, at: 15 * dayMs)
    #expect(before.state == .active)
    #expect(!before.willRenew)
    #expect(before.accessEndsAtMs == 20 * dayMs)
    let after = evaluate(mapping, at: 21 * dayMs)
    #expect(!after.state.isEntitledByDefault)
  }

  @Test("cancelReason 4 (tier change) ends the receipt as replaced")
  func tierChange() {
    let mapping = Self.map([Self.subscription(autoRenewing: false, cancel: 10, reason: 4)], asOf: 15)
    let state = evaluate(mapping, at: 15 * dayMs)
    #expect(state.state == .expired)
    #expect(state.reason == .replaced)
    #expect(state.accessEndsAtMs == 10 * dayMs)
  }

  @Test("cancelDate at the term's end with cancelReason 2: expired for a billing failure")
  func billingCancel() {
    let mapping = Self.map(
      [Self.subscription(autoRenewing: false, cancel: 37, reason: 2, grace: 37)], asOf: 40)
    let state = evaluate(mapping, at: 40 * dayMs)
    #expect(state.state == .expired)
    #expect(state.reason == .billingError)
  }

  @Test("freeTrialEndDate inside the term: a free-trial period, then the paid one")
  func trialSplit() {
    let mapping = Self.map([Self.subscription(to: 37, trialEnd: 7)], asOf: 3)
    #expect(mapping.history.transactions.map(\.transactionId).sorted() == ["r1", "r1#trial"])
    #expect(evaluate(mapping, at: 3 * dayMs).state == .trial)
    let paid = evaluate(mapping, at: 8 * dayMs)
    #expect(paid.state == .active)
    #expect(paid.expiresAtMs == 37 * dayMs)
  }

  @Test("an Active introductory price promotion makes the term an intro offer; a Queued one does not")
  func introPromotion() {
    let active = [RVSPromotion(promotionType: "Introductory Price - All Customers", promotionStatus: "Active")]
    let queued = [RVSPromotion(promotionType: "Introductory Price - All Customers", promotionStatus: "Queued")]
    #expect(evaluate(Self.map([Self.subscription(promotions: active)], asOf: 1), at: dayMs).state == .introOffer)
    #expect(evaluate(Self.map([Self.subscription(promotions: queued)], asOf: 1), at: dayMs).state == .active)
  }

  @Test("a grace date older than the purchase is dropped, never read as an expiry")
  func staleGrace() {
    let mapping = Self.map([Self.subscription(from: 10, to: 40, grace: 5)], asOf: 20)
    #expect(mapping.notes.contains(.staleGracePeriodEndDate(receiptId: "r1", gracePeriodEndDate: 5 * dayMs)))
    #expect(evaluate(mapping, at: 20 * dayMs).state == .active)
  }

  @Test("deferredSku: a pending change to that term SKU")
  func deferred() {
    let mapping = Self.map([Self.subscription(deferredSku: "pro_yearly")], asOf: 1)
    #expect(mapping.history.renewalInfo?.autoRenewProductId == "pro_yearly")
    #expect(evaluate(mapping, at: dayMs).pendingProductChange?.toProductId == "pro_yearly")
  }

  @Test("past its deferredDate the receipt renewed into the deferred SKU on a new receipt: replaced, not a lapse")
  func deferredChangeTookEffect() {
    let receipt = Self.subscription(deferredSku: "pro_yearly", deferredDate: 30)
    #expect(Self.map([receipt], asOf: 29).history.renewalInfo?.expirationIntent == nil)
    let after = Self.map([receipt], asOf: 31)
    #expect(after.history.renewalInfo?.expirationIntent == .replaced)
    let state = evaluate(after, at: 31 * dayMs)
    // Not `lapsed`: a lapse past the renewal leeway with nothing new is read as a stale copy and
    // asked again until the outage leeway ran out (every ~300 ms for 7 days in the worker).
    #expect(state.reason == .replaced)
    #expect(state.accessEndsAtMs == 30 * dayMs)
    // Billing trouble at the deferred date is not a replacement.
    let failing = Self.map([Self.subscription(grace: 33, deferredSku: "pro_yearly", deferredDate: 30)], asOf: 31)
    #expect(failing.history.renewalInfo?.expirationIntent == nil)
  }

  @Test("a subscription with neither renewalDate nor cancelDate grants nothing and fails closed")
  func withoutEnd() {
    let mapping = Self.map([Self.subscription(to: nil)], asOf: 1)
    #expect(mapping.failsClosed)
    #expect(mapping.notes.contains(.subscriptionWithoutEnd(receiptId: "r1")))
    #expect(!evaluate(mapping, at: dayMs).state.isEntitledByDefault)
  }

  @Test("an unknown product type grants nothing and fails closed")
  func unknownType() {
    var receipt = Self.subscription()
    receipt.productType = "RENTAL"
    let mapping = Self.map([receipt], asOf: 1)
    #expect(mapping.failsClosed)
    #expect(mapping.history.transactions.isEmpty)
  }

  @Test("ENTITLED with a past cancelDate: revoked from then")
  func entitledCancelled() {
    let owned = RVSReceipt(
      receiptId: "e1", productType: "ENTITLED", productId: "level_pack", purchaseDate: 0, cancelDate: 5 * dayMs)
    let mapping = AmazonMapping(receipt: owned, environment: .production, asOfMs: 6 * dayMs)
    let state = evaluate(mapping, at: 6 * dayMs)
    #expect(state.state == .revoked)
    #expect(state.accessEndsAtMs <= 5 * dayMs)
  }

  @Test("sandbox: testTransaction, or the sandbox endpoint")
  func sandbox() {
    var test = Self.subscription()
    test.testTransaction = true
    #expect(Self.map([test], asOf: 1).history.environment == .sandbox)
    #expect(Self.map([Self.subscription()], asOf: 1, environment: .sandbox).history.environment == .sandbox)
    #expect(Self.map([Self.subscription()], asOf: 1).history.environment == .production)
  }

  @Test("a chain across a tier change: the old receipt ends at its cancelDate, the new one grants")
  func chainAcrossTierChange() {
    let old = Self.subscription(autoRenewing: false, cancel: 10, reason: 4)
    let new = Self.subscription("r2", sku: "premium_monthly", from: 10, to: 40)
    let mapping = Self.map([new, old], asOf: 15)
    #expect(mapping.history.purchaseId == "r1")
    #expect(mapping.history.parentProductId == "pro")
    #expect(mapping.userId == "amzn1.user")
    let state = evaluate(mapping, at: 15 * dayMs)
    #expect(state.state == .active)
    #expect(state.productId == "premium_monthly")
    #expect(state.transactionId == "r2")
    #expect(state.expiresAtMs == 40 * dayMs)
    let oldTerm = mapping.history.transactions.first { $0.transactionId == "r1" }
    #expect(oldTerm?.expiresDateMs == 10 * dayMs)
  }

  @Test("grouping: same user and parent is one chain named by its first receipt; others stand alone")
  func grouping() {
    let a1 = Self.subscription("a1", from: 0)
    let a2 = Self.subscription("a2", from: 10)
    let otherUser = Self.subscription("b1", user: "amzn1.other", from: 5)
    let otherParent = Self.subscription("c1", parent: "sports", from: 6)
    let pack = RVSReceipt(receiptId: "k1", productType: "CONSUMABLE", productId: "coins", purchaseDate: 1)
    let noId = RVSReceipt(productType: "SUBSCRIPTION", productId: "x", purchaseDate: 2)
    let chains = AmazonReceiptChain.group([a2, pack, otherParent, a1, otherUser, noId])
    #expect(chains.map(\.chainId) == ["a1", "k1", "b1", "c1"])
    #expect(chains[0].receipts.map(\.receiptId) == ["a1", "a2"])
  }
}

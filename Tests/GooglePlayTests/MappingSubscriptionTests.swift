import Foundation
import GooglePlay
import Testing
import TollgateCore
import TollgateTesting

/// subscriptionsv2 vectors mapped into Core and evaluated by `SubscriptionLifecycle` at chosen
/// moments: the unified state each Google state leads to.
@Suite("subscriptionsv2 → Core", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct MappingSubscriptionTests {
  func mapped(_ name: String, asOf: String) throws -> GooglePlayMapping {
    let resource: SubscriptionPurchaseV2 = try GoogleVectors.decode("aporat-subscriptionsv2/\(name).json")
    return GooglePlayMapping(subscription: resource, purchaseToken: "tok", packageName: "app.example", asOfMs: ms(asOf))
  }

  func evaluate(_ mapping: GooglePlayMapping, at moment: String) -> SubscriptionEvaluation {
    SubscriptionLifecycle.evaluate(mapping.history, at: ms(moment))
  }

  @Test func activeAcknowledgedIsActiveUntilItsExpiry() throws {
    let m = try mapped("subscriptionsv2-active-acknowledged", asOf: "2026-09-01T00:00:00Z")
    #expect(m.history.store == .googlePlay && m.history.purchaseId == "tok" && m.history.environment == .production)
    #expect(m.history.asOfMs == ms("2026-09-01T00:00:00Z") && m.notes.isEmpty && !m.failsClosed)
    #expect(m.obfuscatedExternalAccountId == "5E8A3B2C-1D4F-4E6A-9B7C-8D9E0F1A2B3C" && m.packageName == "app.example")
    let period = try #require(m.history.transactions.first)
    #expect(m.history.transactions.count == 1)
    #expect(period.transactionId == "GPA.3333-4444-5555-66666..5" && period.productId == "app.example.subscription")
    #expect(period.purchaseDateMs == ms("2025-10-05T14:32:11.512Z"))
    #expect(period.expiresDateMs == ms("2026-10-05T14:32:11.512Z") && period.offerType == nil)
    #expect(m.history.renewalInfo?.willAutoRenew == true && m.history.renewalInfo?.isAcknowledged == true)
    #expect(m.history.renewalInfo?.googlePlayState == .active)

    let now = evaluate(m, at: "2026-09-01T00:00:00Z")
    #expect(now.state == .active && now.isEntitled && now.willRenew && !now.acknowledgementPending && !now.isSandbox)
    #expect(now.expiresAtMs == ms("2026-10-05T14:32:11.512Z") && now.transactionId == "GPA.3333-4444-5555-66666..5")
    // A renewal that never lands: entitled through the leeway, then expired.
    #expect(!evaluate(m, at: "2026-10-10T00:00:00Z").isEntitled)
  }

  @Test func canceledIsEntitledUntilExpiryThenExpiredByTheCustomer() throws {
    let m = try mapped("subscriptionsv2-canceled-test-linked-prepaid-addon", asOf: "2026-09-02T00:00:00Z")
    #expect(m.history.environment == .sandbox && m.history.linkedPurchaseToken == "older-token")
    #expect(m.history.transactions.map(\.transactionId) == ["GPA.1111-2222-3333-44444..2", "GPA.9999-8888-7777-66666"])
    let info = try #require(m.history.renewalInfo)
    #expect(info.willAutoRenew == false && info.expirationIntent == .customerCanceled)
    #expect(info.autoRenewProductId == "app.example.subscription.plus" && info.priceIncreaseStatus == .pending)
    #expect(info.isAcknowledged == false && info.googlePlayState == .canceled)

    let before = evaluate(m, at: "2026-09-10T00:00:00Z")
    #expect(before.state == .active && before.isEntitled && !before.willRenew)
    #expect(before.isSandbox && before.acknowledgementPending)
    #expect(before.pendingProductChange?.toProductId == "app.example.subscription.plus")
    // The prepaid add-on runs to 2027-01-01; after it, the customer's cancellation ends it all.
    let after = evaluate(m, at: "2027-01-02T00:00:00Z")
    #expect(after.state == .expired && after.reason == .customerCanceled && !after.isEntitled)
  }

  @Test func onHoldIsNotEntitled() throws {
    let m = try mapped("subscriptionsv2-on-hold-installments-free-trial", asOf: "2026-09-02T00:00:00Z")
    let periods = m.history.transactions
    // Both items were bought in one order: each period keeps its own id.
    #expect(
      periods.map(\.transactionId).sorted() == [
        "GPA.5555-4444-3333-22222..3|app.example.addon", "GPA.5555-4444-3333-22222..3|app.example.subscription",
      ])
    let main = try #require(periods.first { $0.productId == "app.example.subscription" })
    #expect(main.offerType == .introductory && main.offerDiscountType == .freeTrial)
    #expect(periods.first { $0.productId == "app.example.addon" }?.offerType == nil)
    #expect(m.history.renewalInfo?.priceIncreaseStatus == .pending)
    let held = evaluate(m, at: "2026-09-02T00:00:00Z")
    #expect(held.state == .onHold && held.reason == .accountHold && !held.isEntitled)
  }

  @Test func onHoldWithAFutureExpiryEndsAtTheRead() throws {
    let m = try mapped("subscriptionsv2-on-hold-installments-free-trial", asOf: "2026-08-15T00:00:00Z")
    #expect(m.history.transactions.allSatisfy { $0.expiresDateMs == ms("2026-08-15T00:00:00Z") })
    #expect(m.notes.contains(.expiryCutAtRead(productId: "app.example.subscription")))
    #expect(evaluate(m, at: "2026-08-20T00:00:00Z").state == .onHold)
  }

  @Test(arguments: [
    "subscriptionsv2-partial-active-lineitems-without-expiry", "subscriptionsv2-partial-in-grace-renewal-declined",
  ])
  func anEntitlingStateWithoutExpiryGrantsNothing(name: String) throws {
    let m = try mapped(name, asOf: "2026-09-01T00:00:00Z")
    #expect(m.failsClosed && m.history.transactions.isEmpty)
    #expect(m.notes.contains { if case .entitlingStateWithoutExpiry = $0 { true } else { false } })
    let now = evaluate(m, at: "2026-09-01T00:00:00Z")
    #expect(!now.isEntitled && now.state == .expired)
  }

  @Test func itemsWithoutExpiryAreNotedOneByOne() throws {
    let m = try mapped("subscriptionsv2-partial-active-lineitems-without-expiry", asOf: "2026-09-01T00:00:00Z")
    #expect(
      m.notes == [
        .undecodableLineItems(count: 1), .lineItemWithoutExpiry(productId: "a"), .lineItemWithoutExpiry(productId: "b"),
        .entitlingStateWithoutExpiry(subscriptionState: "SUBSCRIPTION_STATE_ACTIVE"),
      ])
  }

  @Test func mixedExpiriesTheLatestItemRules() throws {
    let m = try mapped("subscriptionsv2-partial-mixed-expiry-lineitems", asOf: "2026-04-01T00:00:00Z")
    #expect(m.notes.contains(.withoutStartTime) && m.notes.contains(.lineItemWithoutExpiry(productId: "undated")))
    #expect(!m.failsClosed && m.history.transactions.count == 3)
    let now = evaluate(m, at: "2026-04-01T00:00:00Z")
    #expect(now.state == .active && now.productId == "late" && now.expiresAtMs == ms("2026-06-01T00:00:00Z"))
    #expect(!evaluate(m, at: "2026-06-01T00:00:00Z").isEntitled)
  }

  @Test func pausedWithoutItemsIsNotEntitledAndKeepsItsResumeTime() throws {
    let m = try mapped("subscriptionsv2-partial-paused-auto-resume", asOf: "2026-09-01T00:00:00Z")
    #expect(!m.failsClosed && m.history.environment == .production)
    #expect(m.history.renewalInfo?.autoResumeTimeMs == ms("2026-10-01T00:00:00Z"))
    #expect(!evaluate(m, at: "2026-09-01T00:00:00Z").isEntitled)
  }

  @Test func anUnknownStateGrantsNothingEvenWithAnExpiry() throws {
    let m = try mapped("subscriptionsv2-partial-unknown-state", asOf: "2026-09-01T00:00:00Z")
    #expect(m.notes == [.unknownSubscriptionState("SUBSCRIPTION_STATE_FROM_THE_FUTURE")] && m.failsClosed)
    #expect(m.history.renewalInfo?.isAcknowledged == nil && m.history.renewalInfo?.googlePlayState == nil)
    let dated = try Inline.map(state: "SUBSCRIPTION_STATE_FROM_THE_FUTURE", expiry: "2026-12-01T00:00:00Z")
    #expect(dated.history.transactions.isEmpty && dated.failsClosed)
    #expect(!SubscriptionLifecycle.evaluate(dated.history, at: ms("2026-09-01T00:00:00Z")).isEntitled)
  }
}

/// Hand-written subscriptionsv2 bodies for the states the vectors only show partially.
enum Inline {
  static func map(
    state: String, expiry: String, extra: String = "", item: String = "", asOf: String = "2026-09-01T00:00:00Z"
  ) throws -> GooglePlayMapping {
    let body = """
      {"startTime": "2026-08-01T00:00:00Z", "subscriptionState": "\(state)", \(extra)
       "lineItems": [{"productId": "pro", "expiryTime": "\(expiry)", "latestSuccessfulOrderId": "GPA.1..1",
                      \(item) "autoRenewingPlan": {"autoRenewEnabled": true}}]}
      """
    let resource = try JSONDecoder().decode(SubscriptionPurchaseV2.self, from: Data(body.utf8))
    return GooglePlayMapping(subscription: resource, purchaseToken: "tok", packageName: "p", asOfMs: ms(asOf))
  }
}

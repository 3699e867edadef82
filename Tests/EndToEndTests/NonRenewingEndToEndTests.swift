import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateDemo
import TollgateTesting
import TollgateWorker

/// Issue 24 item 2: a purchase the store gives no expiry for (an Apple non-renewing subscription)
/// grants for as long as the catalog's `duration` says, not for life; a product with no duration
/// grants nothing and says why. Through the simulator, the worker and the service.
@Suite("Non-renewing products end to end", .serialized)
struct NonRenewingEndToEndTests {
  static let day: Int64 = 86_400_000
  static let seasonPass = LocalStack.seasonPass

  static func withoutSeasonPassDuration(_ catalog: inout ProductCatalog) {
    for index in catalog.products.indices where catalog.products[index].productId == seasonPass {
      catalog.products[index].duration = nil
    }
  }

  static func admin(_ stack: Stack) -> WorkerAdmin {
    WorkerAdmin(storage: stack.worker.storage, catalog: stack.local.configuration.catalog, nowMs: stack.local.nowMs)
  }

  @Test("a season pass (P1M in the catalog) grants for a calendar month from its purchase, then ends")
  func seasonPassEnds() async throws {
    try await withStack { stack in
      let (purchase, response) = try await stack.buyAndSubmit(Self.seasonPass, userId: "season")
      #expect(response.status == .verified, "\(response.rejectionReason) \(response.error.message)")
      let stored = try #require(
        try await stack.worker.storage.subscription(store: .appStore, purchaseId: purchase.originalTransactionId))
      let boughtAt = try #require(stored.history.transactions.first?.purchaseDateMs)
      #expect(stored.history.transactions.first?.expiresDateMs == Int64.max, "Apple gives no expiry")
      let end = CalendarDuration(months: 1).adding(toMs: boughtAt)
      let answer = try await stack.answer("season")
      #expect(answer.active)
      #expect(answer.expiresAtMs == end)
      #expect(!answer.willRenew)
      #expect(response.entitlements.map(\.entitlement) == ["premium"])

      _ = try await stack.sim.advance(byMs: 32 * Self.day)
      let ended = try await stack.until("season") { !$0.active }
      #expect(!ended.active)
      #expect(ended.state == .expired)
      // The worker's next check (the daily sweep at the latest) writes the end too.
      let checked = try await eventually(timeout: .seconds(10)) {
        try await stack.worker.storage.subscription(store: .appStore, purchaseId: purchase.originalTransactionId)?
          .state == .expired
      }
      #expect(checked != nil, "the worker did not record the end of the season pass")
      let explained = try await Self.admin(stack).explain(userId: "season", entitlement: "premium")
      #expect(explained.sources.map(\.state) == ["expired"], "\(explained.text)")
    }
  }

  @Test("a one-time product the catalog gives no duration grants nothing, and says why")
  func withoutDurationGrantsNothing() async throws {
    try await withStack(catalog: Self.withoutSeasonPassDuration) { stack in
      let (purchase, response) = try await stack.buyAndSubmit(Self.seasonPass, userId: "unset")
      #expect(response.status == .verified, "the purchase is genuine: \(response.rejectionReason)")
      #expect(response.entitlements.allSatisfy { !$0.active }, "\(response.entitlements)")
      let answer = try await stack.answer("unset")
      #expect(!answer.active)
      let stored = try #require(
        try await stack.worker.storage.subscription(store: .appStore, purchaseId: purchase.originalTransactionId))
      #expect(stored.state == .expired)
      #expect(stored.reason == StateReason.durationNotConfigured.rawValue)
      let explained = try await Self.admin(stack).explain(userId: "unset", entitlement: "premium")
      #expect(explained.sources.map(\.rule) == ["duration_not_configured"], "\(explained.text)")
    }
  }
}

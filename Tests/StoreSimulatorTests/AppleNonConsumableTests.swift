import AppStore
import Foundation
import StoreSimulator
import Testing
import TollgateCore
import TollgateTesting

@Suite("Store simulator: Apple non-consumables through the real client, verifier, mapping and lifecycle")
struct AppleNonConsumableTests {
  static let lifetime = "com.example.lifetime"

  @Test("a non-consumable is one transaction of its own, without expiry, renewal or subscription status")
  func purchase() async throws {
    try await Harness.run { harness in try await Self.purchase(harness) }
  }

  static func purchase(_ harness: Harness) async throws {
    let sim = harness.sim
    let purchase = try await sim.purchase(ApplePurchaseRequest(productId: Self.lifetime, appAccountToken: "user-1"))
    #expect(purchase.transactionId == purchase.originalTransactionId)
    let signed = try harness.transaction(purchase.signedTransaction)
    #expect(signed.type == "Non-Consumable")
    #expect(signed.typedType == .nonConsumable)
    #expect(signed.expiresDate == nil)
    #expect(signed.originalTransactionId == signed.transactionId)
    #expect(signed.inAppOwnershipType == "PURCHASED")
    #expect(signed.subscriptionGroupIdentifier == nil)
    #expect(signed.webOrderLineItemId == nil)
    #expect(signed.transactionReason == "PURCHASE")
    #expect(signed.price == 29_990)
    #expect(signed.appAccountToken == "user-1")

    let client = harness.client()
    let info = try await client.getTransactionInfo(transactionId: purchase.transactionId)
    #expect(try harness.transaction(info.signedTransactionInfo).transactionId == purchase.transactionId)
    let history = try await client.getAllTransactions(transactionId: purchase.transactionId)
    #expect(try history.map { try harness.transaction($0).transactionId } == [purchase.transactionId])
    // Known to the App Store but no auto-renewable subscription: 200 with no subscription in it.
    let statuses = try await client.getAllSubscriptionStatuses(transactionId: purchase.transactionId)
    #expect(statuses.data?.isEmpty == true)
    #expect(statuses.bundleId == Harness.bundleId)

    let snapshot = try sim.subscription(purchase.transactionId)
    #expect(snapshot.type == "Non-Consumable")
    #expect(snapshot.state == .active)
    #expect(snapshot.expiresDate == Int64.max)

    let advanced = try await sim.advance(byMs: 400 * SimDuration.dayMs)
    #expect(advanced.events.isEmpty)  // nothing renews, nothing expires
    #expect(try sim.subscription(purchase.transactionId).state == .active)

    let received = try harness.received()
    #expect(received.map(\.notificationType) == ["ONE_TIME_CHARGE"])
    #expect(received.first?.subtype == nil)
    #expect(received.first?.data?.signedRenewalInfo == nil)
    #expect(received.first?.data?.status == nil)
  }

  @Test("subscription scenarios refuse a non-consumable; offers and resubscribing are refused at purchase")
  func refusals() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let id = try await sim.purchase(ApplePurchaseRequest(productId: Self.lifetime)).transactionId
      await #expect(throws: StoreSimulatorError.self) { try await sim.failRenewals(id) }
      await #expect(throws: StoreSimulatorError.self) { try await sim.setAutoRenew(id, enabled: false) }
      await #expect(throws: StoreSimulatorError.self) { try await sim.changeProduct(id, to: "com.example.monthly") }
      await #expect(throws: StoreSimulatorError.self) { try await sim.familyShare(id) }
      await #expect(throws: StoreSimulatorError.self) {
        try await sim.purchase(ApplePurchaseRequest(productId: Self.lifetime, offer: "trial"))
      }
      await #expect(throws: StoreSimulatorError.self) {
        try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly", originalTransactionId: id))
      }
    }
  }

  @Test("a refund revokes it: REFUND notification, revocation in transaction info and history, Core says revoked")
  func refund() async throws {
    try await Harness.run { harness in try await Self.refund(harness) }
  }

  static func refund(_ harness: Harness) async throws {
    let sim = harness.sim
    let purchase = try await sim.purchase(ApplePurchaseRequest(productId: Self.lifetime))
    let client = harness.client()

    // Before the refund, Core grants it for life.
    let before = try await history(of: purchase.transactionId, harness)
    let later = Harness.startMs + 400 * SimDuration.dayMs
    let entitled = SubscriptionLifecycle.evaluate(before, at: later)
    #expect(entitled.state == .active)
    #expect(entitled.isEntitled)
    #expect(entitled.expiresAtMs == Int64.max)
    #expect(!entitled.willRenew)

    try await sim.advance(byMs: 10 * SimDuration.dayMs)
    let refundedAt = sim.clockNowMs
    let snapshot = try await sim.refund(purchase.transactionId, reason: 1)
    #expect(snapshot.state == .revoked)

    let info = try harness.transaction(
      try await client.getTransactionInfo(transactionId: purchase.transactionId).signedTransactionInfo)
    #expect(info.revocationDate == refundedAt)
    #expect(info.revocationReason == 1)
    let received = try harness.received()
    #expect(received.map(\.notificationType) == ["ONE_TIME_CHARGE", "REFUND"])
    let refunded = try harness.transaction(received.last?.data?.signedTransactionInfo)
    #expect(refunded.revocationDate == refundedAt)
    #expect(received.last?.data?.signedRenewalInfo == nil)
    let refunds = try await client.getRefundHistory(transactionId: purchase.transactionId).signedTransactions ?? []
    #expect(try refunds.map { try harness.transaction($0).transactionId } == [purchase.transactionId])

    let after = try await history(of: purchase.transactionId, harness)
    let revoked = SubscriptionLifecycle.evaluate(after, at: refundedAt + 1)
    #expect(revoked.state == .revoked)
    #expect(!revoked.isEntitled)
    await #expect(throws: StoreSimulatorError.self) { try await sim.refund(purchase.transactionId) }
  }

  @Test("over the control API (as `tollgate storesim purchase com.example.lifetime` sends it): buy, show, refund")
  func controlAPI() async throws {
    try await Harness.run { harness in
      let control = StoreSimulatorControlClient(baseURL: harness.sim.baseURL, httpClient: .shared)
      let bought = try await control.send("POST", "/sim/apple/purchases", json: ["productId": Self.lifetime])
      #expect(bought.isSuccess, "\(bought.body)")
      let purchase = try JSONDecoder().decode(ApplePurchaseResult.self, from: Data(bought.body.utf8))
      let shown = try await control.send("GET", "/sim/apple/subscriptions/\(purchase.transactionId)")
      let snapshot = try JSONDecoder().decode(AppleSubscriptionSnapshot.self, from: Data(shown.body.utf8))
      #expect(snapshot.type == "Non-Consumable" && snapshot.state == .active)
      let refused = try await control.send(
        "POST", "/sim/apple/subscriptions/\(purchase.transactionId)/auto-renew", json: ["enabled": false])
      #expect(refused.status == 409)
      let refunded = try await control.send(
        "POST", "/sim/apple/subscriptions/\(purchase.transactionId)/refund", json: ["reason": 1])
      #expect(
        try JSONDecoder().decode(AppleSubscriptionSnapshot.self, from: Data(refunded.body.utf8)).state == .revoked)
    }
  }

  @Test("a config file declares a non-consumable by Apple's type name; a subscription still needs a group and period")
  func configFile() throws {
    let dir = try TemporaryDirectory(prefix: "storesim-nc")
    defer { dir.remove() }
    let good = dir.path + "/good.json"
    try Data(
      #"{"apple": {"products": [{"productId": "gold", "type": "Non-Consumable", "price": 1990}, {"productId": "m", "groupId": "1", "period": "P1M"}]}}"#
        .utf8
    ).write(to: URL(fileURLWithPath: good))
    let products = try StoreSimulator.Config.load(path: good).apple.products
    #expect(products.map(\.type) == [.nonConsumable, .autoRenewable])
    #expect(products.first?.price == 1_990)
    let bad = dir.path + "/bad.json"
    try Data(#"{"apple": {"products": [{"productId": "m", "period": "P1M"}]}}"#.utf8).write(
      to: URL(fileURLWithPath: bad))
    #expect(throws: StoreSimulatorError.self) { try StoreSimulator.Config.load(path: bad) }
    let unknown = dir.path + "/unknown.json"
    try Data(#"{"apple": {"products": [{"productId": "c", "type": "Consumable"}]}}"#.utf8).write(
      to: URL(fileURLWithPath: unknown))
    #expect(throws: StoreSimulatorError.self) { try StoreSimulator.Config.load(path: unknown) }
  }

  /// The chain as the worker reads it from the Server API and maps it to Core.
  static func history(of id: String, _ harness: Harness) async throws -> SubscriptionHistory {
    let signed = try await harness.client().getAllTransactions(transactionId: id)
    return SubscriptionHistory(
      appStoreOriginalTransactionId: id, transactions: try signed.map(harness.transaction), renewalInfo: nil,
      asOfMs: harness.sim.clockNowMs)
  }
}

import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateDemo
import TollgateServer
import TollgateStorage
import TollgateTesting

/// The worker through the real path: simulator over HTTP, signatures checked against its root,
/// SQLite, the change feed, and IsSubscriber over TCP.
@Suite("Worker end to end", .serialized)
struct WorkerEndToEndTests {
  static let day: Int64 = 86_400_000

  @Test("submit → verified → visible through IsSubscriber; each kind of receipt is accepted")
  func submitVerifyVisible() async throws {
    try await withStack { stack in
      let (purchase, response) = try await stack.buyAndSubmit(userId: "alice")
      #expect(response.status == .verified, "\(response.rejectionReason) \(response.error.message)")
      #expect(response.entitlements.map(\.entitlement) == ["basic", "premium"])
      #expect(response.entitlements.allSatisfy { $0.active })
      let answer = try await stack.answer("alice")
      #expect(answer.active)
      #expect(answer.state == .active)
      #expect(answer.store == .appStore)
      #expect(answer.environment == .sandbox)
      #expect(answer.storeSubscriptionID == purchase.originalTransactionId)
      #expect(answer.willRenew)

      // A bare transaction id and the legacy receipt data resolve to the same chain.
      let second = try await stack.sim.purchase(
        .init(productId: Stack.basic, bundleId: Stack.bundleId, environment: "Sandbox"))
      #expect(try await stack.submit(second.transactionId, userId: "bob").status == .verified)
      let third = try await stack.sim.purchase(
        .init(productId: Stack.basic, bundleId: Stack.bundleId, environment: "Sandbox"))
      #expect(try await stack.submit(third.receiptData, userId: "carol").status == .verified)
      #expect(try await stack.answer("carol", "basic").active)
      #expect(!(try await stack.answer("carol", "premium").active))
    }
  }

  @Test("notifications drive renewal, opt-out and expiry; each is re-read from the store")
  func renewalOptOutExpiry() async throws {
    try await withStack { stack in
      let (purchase, response) = try await stack.buyAndSubmit(userId: "alice")
      #expect(response.status == .verified)
      let firstExpiry = try await stack.answer("alice").expiresAtMs
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      let renewed = try await stack.until("alice") { $0.expiresAtMs > firstExpiry + 20 * Self.day }
      #expect(renewed.active)
      #expect(renewed.expiresAtMs > firstExpiry + 20 * Self.day)

      _ = try await stack.sim.setAutoRenew(purchase.originalTransactionId, enabled: false)
      let optedOut = try await stack.until("alice") { !$0.willRenew }
      #expect(!optedOut.willRenew)
      #expect(optedOut.active)

      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      let expired = try await stack.until("alice") { !$0.active }
      #expect(!expired.active)
      #expect(expired.state == .expired)
      let events = try await stack.events("alice", awaiting: "expired")
      #expect(events.filter { $0 == "renewed" }.count == 1)
      #expect(events.contains("opted_out"))
      #expect(events.last == "expired")
    }
  }

  @Test("a refund revokes; billing trouble goes through grace and comes back on recovery")
  func refundAndBilling() async throws {
    try await withStack { stack in
      let (refunded, _) = try await stack.buyAndSubmit(userId: "refunded")
      _ = try await stack.sim.refund(refunded.originalTransactionId)
      let revoked = try await stack.until("refunded") { $0.state == .revoked }
      #expect(revoked.state == .revoked)
      #expect(!revoked.active)
      #expect(try await stack.events("refunded", awaiting: "refunded").contains("refunded"))

      let (late, _) = try await stack.buyAndSubmit(userId: "late-payer")
      _ = try await stack.sim.failRenewals(late.originalTransactionId)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      let grace = try await stack.until("late-payer") { $0.state == .gracePeriod }
      #expect(grace.state == .gracePeriod)
      #expect(grace.active)
      _ = try await stack.sim.recoverBilling(late.originalTransactionId, immediately: true)
      let recovered = try await stack.until("late-payer") { $0.state == .active }
      #expect(recovered.active)
      #expect(recovered.state == .active)
      let events = try await stack.events("late-payer", awaiting: "recovered")
      #expect(events.contains("grace_started"))
      #expect(events.contains("recovered"))
    }
  }

  @Test("a duplicate notification (same UUID) is stored and applied once")
  func duplicateAppliedOnce() async throws {
    try await withStack { stack in
      _ = try await stack.buyAndSubmit(userId: "alice")
      try await stack.settle()
      let before = try await stack.answer("alice").expiresAtMs
      try stack.sim.addFault(FaultRule(target: "apple.notifications", mode: .duplicate, count: 5))
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      try await stack.until("alice") { $0.expiresAtMs > before }
      // Every delivery answered by the worker (so stored), then the inbox empty: the duplicate
      // was handled, not just not yet arrived.
      let delivered = await eventually {
        let apple = stack.sim.notifications.filter { $0.store == "apple" }
        return apple.count >= 2 && apple.allSatisfy { $0.state == "delivered" }
      }
      #expect(delivered != nil, "\(stack.sim.notifications.map(\.state))")
      try await stack.settle()
      let counts = try await stack.worker.storage.inboxCounts()
      #expect((counts["pending"] ?? 0) + (counts["processing"] ?? 0) == 0)
      let renewed = try await stack.events("alice").filter { $0 == "renewed" }
      #expect(renewed.count == 1)
    }
  }

  /// Where the user's (first) subscription's verified state came from.
  static func evidenceSource(_ stack: Stack, _ userId: String) async throws -> String? {
    try await stack.worker.storage.subscriptions(userId: userId).first?.evidence.source
  }

  /// Inbox items not finished yet.
  static func unfinishedItems(_ stack: Stack) async throws -> Int {
    let counts = try await stack.worker.storage.inboxCounts()
    return counts["pending", default: 0] + counts["processing", default: 0]
  }

  @Test(
    "a store that answers 500: the renewal's signed notification carries the user through the outage, the API confirms after"
  )
  func outageThenRecovery() async throws {
    try await withStack { stack in try await Self.outageThenRecovery(stack) }
  }

  static func outageThenRecovery(_ stack: Stack) async throws {
    _ = try await stack.buyAndSubmit(userId: "alice")
    try await stack.settle()  // the purchase's own SUBSCRIBED notification
    let before = try await stack.answer("alice")
    try stack.sim.addFault(FaultRule(target: "apple.api", mode: .error500, count: nil))
    _ = try await stack.sim.advance(byMs: 30 * Self.day + 3_600_000)  // past the old expiry, within the leeway
    // The API is down, but DID_RENEW's signed transaction proves the new period.
    let renewedExpiry = before.expiresAtMs + 29 * Self.day
    let during = try await stack.until("alice") { $0.expiresAtMs >= renewedExpiry }
    #expect(during.active, "access must not be cut because Apple is down")
    let duringVerifiedAt = during.verifiedAtMs
    let duringExpiry = during.expiresAtMs
    let provenBy = try await Self.evidenceSource(stack, "alice")
    #expect(provenBy == "notification")
    // Its notification item stays pending until the API confirms.
    let unfinished = try await Self.unfinishedItems(stack)
    #expect(unfinished > 0)
    stack.sim.clearFaults()
    // The API's answer replaces the notification's evidence. (Waiting only for verifiedAtMs to
    // move raced a redelivered notification, verified from its own signed transaction first.)
    let confirmed = try await eventually(timeout: .seconds(30)) {
      try await Self.evidenceSource(stack, "alice") == "app_store_server_api"
    }
    let confirmedBy = try await Self.evidenceSource(stack, "alice")
    #expect(confirmed != nil, "the API never confirmed: evidence \(confirmedBy ?? "-")")
    let after = try await stack.until("alice") { $0.verifiedAtMs > duringVerifiedAt }
    #expect(after.active)
    // The store's own answer: the renewed period's end (during the outage, the renewing subscriber's
    // access reached as far as the outage allowance, never less than the period).
    #expect(after.expiresAtMs >= renewedExpiry && after.expiresAtMs <= duringExpiry)
    // The outage is visible to monitoring.
    let metrics = await stack.local.metricsText()
    let failures = metrics.split(separator: "\n").first {
      $0.hasPrefix("tollgate_store_failures_total{") && $0.contains("store=\"app_store\"")
    }
    #expect((failures?.split(separator: " ").last).flatMap { Double($0) } ?? 0 > 0, "\(metrics)")
  }

  @Test("transfer policy keep: a second user is refused and the owner keeps access")
  func transferKeep() async throws {
    try await withStack(transferPolicy: .keepWithOriginalOwner) { stack in
      let (purchase, first) = try await stack.buyAndSubmit(userId: "owner")
      #expect(first.status == .verified)
      let second = try await stack.submit(purchase.signedTransaction, userId: "intruder")
      #expect(second.status == .rejected)
      #expect(second.rejectionReason.contains("bound to another user"))
      #expect(try await stack.answer("owner").active)
      #expect(!(try await stack.answer("intruder").active))
      #expect(try await stack.events("owner").contains("transfer_refused"))
    }
  }

  @Test("transfer policy newest: the purchase moves, the old owner loses access")
  func transferNewest() async throws {
    try await withStack(transferPolicy: .transferToNewest) { stack in
      let (purchase, _) = try await stack.buyAndSubmit(userId: "old")
      #expect(try await stack.answer("old").active)
      let moved = try await stack.submit(purchase.signedTransaction, userId: "new")
      #expect(moved.status == .verified)
      #expect(try await stack.answer("new").active)
      let old = try await stack.until("old") { !$0.active }
      #expect(!old.active)
      #expect(try await stack.events("new").contains("transferred"))
    }
  }

  @Test("another app's receipt is refused, as a signed transaction and as a transaction id")
  func anotherAppsReceipt() async throws {
    try await withStack { stack in
      let other = try await stack.sim.purchase(
        .init(productId: Stack.premium, bundleId: LocalStack.otherBundleId, environment: "Sandbox"))
      let signed = try await stack.submit(other.signedTransaction, userId: "thief")
      #expect(signed.status == .rejected)
      #expect(signed.rejectionReason.contains("invalid_app_identifier"), "\(signed.rejectionReason)")
      var request = Tollgate_V1_SubmitPurchaseRequest()
      request.userID = "thief"
      request.store = .appStore
      request.receipt = other.transactionId
      request.appID = LocalStack.otherBundleId
      request.waitMs = 5_000
      let byId = try await stack.client.submitPurchase(request)
      #expect(byId.status == .rejected)
      #expect(byId.rejectionReason.contains("not a configured App Store app"))
      #expect(!(try await stack.answer("thief").active))
    }
  }

  @Test("a sandbox purchase is refused by a production-only app; a forged receipt is refused")
  func rejections() async throws {
    try await withStack(environment: "production", allowSandbox: false) { stack in
      let (_, sandbox) = try await stack.buyAndSubmit(userId: "tester", environment: "Sandbox")
      #expect(sandbox.status == .rejected)
      #expect(!(try await stack.answer("tester").active))

      let (genuine, _) = try await stack.buyAndSubmit(userId: "real", environment: "Production")
      var parts = genuine.signedTransaction.split(separator: ".").map(String.init)
      parts[2] = String(parts[2].reversed())
      let forged = try await stack.submit(parts.joined(separator: "."), userId: "forger")
      #expect(forged.status == .rejected)
      #expect(forged.rejectionReason.contains("signed transaction"))
      #expect(try await stack.answer("real").active)
    }
  }
}

import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateDemo
import TollgateTesting
import TollgateWorker

/// Amazon Appstore paths through the whole system: the simulator's RVS and its SNS deliveries
/// (signed, confirmed) over HTTP, the real worker and SQLite, and the service over TCP.
@Suite("Amazon lifecycle end to end", .serialized)
struct AmazonLifecycleEndToEndTests {
  static let day: Int64 = 86_400_000

  @Test("a submitted receipt is verified in one call; a renewal arrives by notification")
  func purchaseAndRenew() async throws {
    try await withStack { stack in
      _ = try await eventually { try stack.sim.amazonNotificationEndpoint() == "confirmed" }
      let purchase = try await stack.local.amazonBuy()
      let response = try await stack.local.amazonSubmit(
        receiptId: purchase.receiptId, amazonUserId: purchase.userId, userId: "a1")
      #expect(response.status == .verified, "\(response.rejectionReason)")
      let answer = try await stack.answer("a1")
      #expect(answer.active && answer.store == .amazon && answer.state == .active)
      let stored = try #require(
        try await stack.worker.storage.subscription(store: .amazon, purchaseId: purchase.receiptId))
      #expect(stored.storeUserId == purchase.userId)

      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      let renewed = try await stack.until("a1") { $0.active && $0.expiresAtMs > stack.sim.clockNowMs + 20 * Self.day }
      #expect(renewed.active && renewed.expiresAtMs > stack.sim.clockNowMs + 20 * Self.day, "renewed")
    }
  }

  @Test("free trial, cancelled by the customer (refund): access ends; auto-renew off expires at the term's end")
  func trialCancelAndExpire() async throws {
    try await withStack { stack in
      _ = try await eventually { try stack.sim.amazonNotificationEndpoint() == "confirmed" }
      let trial = try await stack.local.amazonBuy(freeTrial: true)
      _ = try await stack.local.amazonSubmit(receiptId: trial.receiptId, amazonUserId: trial.userId, userId: "t")
      #expect(try await stack.answer("t").state == .trial)
      _ = try await stack.sim.amazonRefund(trial.receiptId)
      #expect(!(try await stack.until("t") { !$0.active }.active))

      let optOut = try await stack.local.amazonBuy()
      _ = try await stack.local.amazonSubmit(receiptId: optOut.receiptId, amazonUserId: optOut.userId, userId: "o")
      _ = try await stack.sim.amazonSetAutoRenew(optOut.receiptId, enabled: false)
      #expect(try await stack.until("o") { !$0.willRenew }.active)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      #expect(try await stack.until("o") { !$0.active }.state == .expired)
    }
  }

  @Test("a new purchase by an Amazon user already bound is its user's from the notification alone")
  func notificationFindsOwner() async throws {
    try await withStack { stack in
      _ = try await eventually { try stack.sim.amazonNotificationEndpoint() == "confirmed" }
      let basic = try await stack.local.amazonBuy(Stack.basic)
      _ = try await stack.local.amazonSubmit(receiptId: basic.receiptId, amazonUserId: basic.userId, userId: "nf")
      #expect(!(try await stack.answer("nf", "premium").active))
      // The same Amazon customer buys premium in the app; the app never submits it.
      _ = try await stack.local.amazonBuy(Stack.premium, amazonUserId: basic.userId)
      let premium = try await stack.until("nf", "premium") { $0.active }
      #expect(premium.active && premium.store == .amazon)
    }
  }

  @Test("billing failure → grace (access) → out of grace (none)")
  func graceAndRecovery() async throws {
    try await withStack { stack in
      _ = try await eventually { try stack.sim.amazonNotificationEndpoint() == "confirmed" }
      let purchase = try await stack.local.amazonBuy()
      _ = try await stack.local.amazonSubmit(receiptId: purchase.receiptId, amazonUserId: purchase.userId, userId: "g")
      _ = try await stack.sim.amazonFailRenewals(purchase.receiptId)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      let grace = try await stack.until("g") { $0.state == .gracePeriod }
      #expect(grace.state == .gracePeriod && grace.active)
      _ = try await stack.sim.advance(byMs: 8 * Self.day)
      #expect(!(try await stack.until("g") { !$0.active }.active), "out of grace: no access")
    }
  }

  @Test("an entitlement (lifetime) grants with no expiry until it is cancelled")
  func entitlement() async throws {
    try await withStack { stack in
      _ = try await eventually { try stack.sim.amazonNotificationEndpoint() == "confirmed" }
      let lifetime = try await stack.local.amazonBuy(LocalStack.lifetime)
      let response = try await stack.local.amazonSubmit(
        receiptId: lifetime.receiptId, amazonUserId: lifetime.userId, userId: "l")
      #expect(response.status == .verified, "\(response.rejectionReason)")
      let owned = try await stack.answer("l")
      #expect(owned.active && owned.expiresAtMs == Int64.max)
      _ = try await stack.sim.advance(byMs: 400 * Self.day)
      try await stack.settle()
      #expect(try await stack.answer("l").active)
      _ = try await stack.sim.amazonCancel(lifetime.receiptId)
      #expect(!(try await stack.until("l") { !$0.active }.active))
    }
  }

  @Test("a tier change now moves the user to the new tier; a deferred one waits for the renewal")
  func tierChanges() async throws {
    try await withStack { stack in
      _ = try await eventually { try stack.sim.amazonNotificationEndpoint() == "confirmed" }
      let basic = try await stack.local.amazonBuy(Stack.basic)
      _ = try await stack.local.amazonSubmit(receiptId: basic.receiptId, amazonUserId: basic.userId, userId: "up")
      #expect(try await stack.answer("up", "basic").active)
      #expect(!(try await stack.answer("up", "premium").active))
      _ = try await stack.sim.advance(byMs: 2 * Self.day)
      _ = try await stack.sim.amazonChangeTier(basic.receiptId, to: Stack.premium, immediate: true)
      let upgraded = try await stack.until("up", "premium") { $0.active }
      #expect(upgraded.active && upgraded.productID == Stack.premium)

      // Down a tier at once: the cancelled receipt (relatedReceipts) is read again and stops granting.
      let high = try await stack.local.amazonBuy(Stack.premium)
      _ = try await stack.local.amazonSubmit(receiptId: high.receiptId, amazonUserId: high.userId, userId: "now")
      _ = try await stack.sim.advance(byMs: 2 * Self.day)
      _ = try await stack.sim.amazonChangeTier(high.receiptId, to: Stack.basic, immediate: true)
      #expect(!(try await stack.until("now", "premium") { !$0.active }.active))
      #expect(try await stack.until("now", "basic") { $0.active }.active)

      let premium = try await stack.local.amazonBuy(Stack.premium)
      _ = try await stack.local.amazonSubmit(receiptId: premium.receiptId, amazonUserId: premium.userId, userId: "down")
      _ = try await stack.sim.amazonChangeTier(premium.receiptId, to: Stack.basic, immediate: false)
      try await stack.settle()
      #expect(try await stack.answer("down", "premium").active, "a deferred change waits for the renewal")
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      #expect(try await stack.until("down", "basic") { $0.active && $0.productID == Stack.basic }.active)
      #expect(!(try await stack.until("down", "premium", timeout: .seconds(30)) { !$0.active }.active))
    }
  }

  @Test(
    "while RVS fails, a renewing subscriber keeps access; long after the end RVS answers 410 and nothing is re-granted")
  func outageAndGone() async throws {
    try await withStack { stack in
      _ = try await eventually { try stack.sim.amazonNotificationEndpoint() == "confirmed" }
      let purchase = try await stack.local.amazonBuy()
      _ = try await stack.local.amazonSubmit(receiptId: purchase.receiptId, amazonUserId: purchase.userId, userId: "o")
      try stack.sim.addFault(FaultRule(target: "amazon.rvs", mode: .error500, count: nil))
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      try await Task.sleep(for: .milliseconds(500))
      #expect(try await stack.answer("o").active, "never revoke because RVS failed")
      stack.sim.clearFaults()
      let caughtUp = try await stack.until("o", timeout: .seconds(15)) {
        $0.active && $0.expiresAtMs > stack.sim.clockNowMs + 20 * Self.day
      }
      #expect(caughtUp.state == .active)

      // Cancelled by the customer, then long over: RVS answers 410; access stays ended.
      _ = try await stack.sim.amazonCancel(purchase.receiptId)
      #expect(!(try await stack.until("o") { !$0.active }.active))
      _ = try await stack.sim.advance(byMs: 120 * Self.day)
      try await stack.settle()
      #expect(!(try await stack.answer("o").active))
      let late = try await stack.local.amazonSubmit(
        receiptId: purchase.receiptId, amazonUserId: purchase.userId, userId: "late")
      #expect(late.status == .rejected)
      #expect(late.rejectionReason.contains("410"), "\(late.rejectionReason)")
    }
  }

  @Test("a receipt with the wrong Amazon user, or another Tollgate user's, is refused; forged SNS is not stored")
  func refusals() async throws {
    try await withStack { stack in
      let purchase = try await stack.local.amazonBuy()
      let wrongUser = try await stack.local.amazonSubmit(
        receiptId: purchase.receiptId, amazonUserId: "amzn1.account.SOMEONEELSE", userId: "x")
      #expect(wrongUser.status == .rejected)
      #expect(wrongUser.rejectionReason.contains("497") || wrongUser.rejectionReason.contains("Amazon user"))
      #expect(
        try await stack.local.amazonSubmit(
          receiptId: purchase.receiptId, amazonUserId: purchase.userId, userId: "owner"
        )
        .status == .verified)
      let second = try await stack.local.amazonSubmit(
        receiptId: purchase.receiptId, amazonUserId: purchase.userId, userId: "thief")
      #expect(second.status == .rejected, "keep_with_original_owner")

      let port = await stack.local.workerPort
      let before = try await stack.worker.storage.inboxCounts()
      let forged: [String: Any] = [
        "Type": "Notification", "MessageId": "forged-1", "TopicArn": try stack.sim.amazonTopicArn(),
        "Message":
          #"{"appPackageName":"com.example.amazon","appUserId":"u","receiptId":"r","notificationType":"SUBSCRIPTION_PURCHASED"}"#,
        "Timestamp": "2026-01-01T00:00:00.000Z", "SignatureVersion": "2", "Signature": "AAAA",
        "SigningCertURL": stack.sim.amazonSigningCertificateURL,
      ]
      let refused = try await httpRequest(
        "POST", port: port, path: "/notifications/amazon", body: try JSONSerialization.data(withJSONObject: forged))
      #expect(refused.status == 403)
      var elsewhere = forged
      elsewhere["SigningCertURL"] = "https://evil.example.com/cert.pem"
      let untrusted = try await httpRequest(
        "POST", port: port, path: "/notifications/amazon", body: try JSONSerialization.data(withJSONObject: elsewhere))
      #expect(untrusted.status == 403)
      #expect(try await stack.worker.storage.inboxCounts() == before)
    }
  }
}

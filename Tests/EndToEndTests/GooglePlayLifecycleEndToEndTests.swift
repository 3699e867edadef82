import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateCrypto
import TollgateDemo
import TollgateTesting
import TollgateWorker

/// Google Play's paths through the whole system: the simulator's Android Publisher API, OAuth
/// token endpoint, JWKS and authenticated Pub/Sub pushes over HTTP, the real worker and SQLite,
/// and IsSubscriber over TCP.
@Suite("Google Play lifecycle end to end", .serialized)
struct GooglePlayLifecycleEndToEndTests {
  static let day: Int64 = 86_400_000

  @Test("trial → paid → renewed, acknowledged by the worker; a notification alone binds by the obfuscated account")
  func trialToPaid() async throws {
    try await withStack(configure: { $0.bindAppAccountToken = true }, Self.trialToPaid)
  }

  static func trialToPaid(_ stack: Stack) async throws {
    do {
      let (purchase, response) = try await stack.googleBuyAndSubmit(userId: "g1", offer: "trial")
      #expect(response.status == .verified, "\(response.rejectionReason)")
      #expect(try await stack.answer("g1").state == .trial)
      _ = try await eventually { try stack.sim.googlePurchaseSnapshot(purchase.purchaseToken).acknowledged }
      _ = try await stack.sim.advance(byMs: 8 * Self.day)
      #expect(try await stack.until("g1") { $0.state == .active }.active)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      try await stack.settle()
      let renewed = try await stack.answer("g1")
      #expect(renewed.active && renewed.state == .active)
      #expect(renewed.expiresAtMs > stack.sim.clockNowMs)

      // Bought in the app with the user's id as the obfuscated account; never submitted.
      _ = try await stack.googleBuy(accountId: "g-user-2")
      #expect(try await stack.until("g-user-2") { $0.active }.active)
    }
  }

  @Test("billing failure → grace (access) → account hold (none) → recovered")
  func graceHoldRecovered() async throws {
    try await withStack { stack in
      let (purchase, _) = try await stack.googleBuyAndSubmit(userId: "g")
      _ = try await stack.sim.googleFailRenewals(purchase.purchaseToken)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      let grace = try await stack.until("g") { $0.state == .gracePeriod }
      #expect(grace.state == .gracePeriod && grace.active)
      _ = try await stack.sim.advance(byMs: 8 * Self.day)
      let hold = try await stack.until("g") { $0.state == .onHold }
      let snapshot = try stack.sim.googlePurchaseSnapshot(purchase.purchaseToken)
      #expect(hold.state == .onHold, "Google says \(snapshot.state)")
      #expect(!hold.active, "account hold gives no access")
      _ = try await stack.sim.googleRecoverPayment(purchase.purchaseToken)
      let recovered = try await stack.until("g") { $0.active }
      #expect(recovered.state == .active)
    }
  }

  @Test("paused: no access until the subscription resumes by itself")
  func pauseAndAutoResume() async throws {
    try await withStack { stack in
      let (purchase, _) = try await stack.googleBuyAndSubmit(userId: "g")
      _ = try await stack.sim.googlePause(purchase.purchaseToken, durationMs: 30 * Self.day)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      let paused = try await stack.until("g") { $0.state == .paused }
      #expect(paused.state == .paused && !paused.active)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      #expect(try await stack.until("g") { $0.active }.state == .active)
    }
  }

  @Test("canceled keeps access until expiry; restarted renews")
  func cancelAndRestart() async throws {
    try await withStack { stack in
      let (purchase, _) = try await stack.googleBuyAndSubmit(userId: "g")
      _ = try await stack.sim.googleCancel(purchase.purchaseToken)
      let canceled = try await stack.until("g") { !$0.willRenew }
      #expect(canceled.active, "a canceled subscription is entitled until it expires")
      _ = try await stack.sim.googleRestart(purchase.purchaseToken)
      #expect(try await stack.until("g") { $0.willRenew }.active)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      try await stack.settle()
      #expect(try await stack.answer("g").active)

      let (other, _) = try await stack.googleBuyAndSubmit(userId: "h")
      _ = try await stack.sim.googleCancel(other.purchaseToken)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      #expect(try await stack.until("h") { $0.state == .expired }.state == .expired)
    }
  }

  @Test("an upgrade's new token is its owner's without a submission; the old token grants nothing after")
  func upgradeLinkedToken() async throws {
    try await withStack { stack in
      let (basic, _) = try await stack.googleBuyAndSubmit(Stack.basic, userId: "g")
      #expect(try await stack.answer("g", "basic").active)
      #expect(!(try await stack.answer("g", "premium").active))
      _ = try await stack.sim.advance(byMs: 3 * Self.day)
      let changed = try await stack.sim.googleChangeProduct(basic.purchaseToken, to: Stack.premium)
      let newToken = try #require(changed.replacedByToken)
      let upgraded = try await stack.until("g", "premium") { $0.active }
      #expect(upgraded.productID == Stack.premium)
      try await stack.settle()
      let stored = try #require(
        try await stack.worker.storage.subscription(store: .googlePlay, purchaseId: newToken))
      #expect(stored.userId == "g")
      #expect(stored.history.linkedPurchaseToken == basic.purchaseToken)
      let oldEvents = try await stack.worker.storage.events(userId: "g").filter {
        $0.purchaseId == basic.purchaseToken
      }.map(\.kind)
      #expect(!oldEvents.contains("refunded") && !oldEvents.contains("revoked"), "\(oldEvents)")
      // The old token ends without an event of its own: the new one's product_changed tells it.
      let newEvents = try await stack.worker.storage.events(userId: "g").filter { $0.purchaseId == newToken }
        .map(\.kind)
      #expect(oldEvents == ["purchased"] && newEvents == ["product_changed"], "\(oldEvents) \(newEvents)")
      // explain shows the token chain.
      let admin = WorkerAdmin(
        storage: stack.worker.storage, catalog: stack.local.configuration.catalog, nowMs: stack.local.nowMs)
      let explained = try await admin.explain(userId: "g", entitlement: "premium")
      let deciding = try #require(explained.sources.first { $0.decides })
      #expect(deciding.replaces == [basic.purchaseToken])
      #expect(explained.text.contains("replaces: \(basic.purchaseToken)"))
      // …and so does GetSubscription, over the wire.
      let summary = try await stack.client.getSubscription(userId: "g")
      let current = try #require(summary.subscriptions.first { $0.storeSubscriptionID == newToken })
      #expect(current.replaces == [basic.purchaseToken])

      // The new token is refunded: the old one (Google still lists its paid month) grants nothing.
      _ = try await stack.sim.googleRefund(newToken)
      #expect(!(try await stack.until("g", "premium") { !$0.active }.active))
      _ = try await eventually { !(try await stack.answer("g", "basic").active) }
    }
  }

  @Test("a deferred downgrade waits for the renewal; a price increase without consent ends at the renewal")
  func downgradeAndPriceChange() async throws {
    try await withStack { stack in
      let (premium, _) = try await stack.googleBuyAndSubmit(Stack.premium, userId: "down")
      _ = try await stack.sim.advance(byMs: 5 * Self.day)
      let deferred = try await stack.sim.googleChangeProduct(premium.purchaseToken, to: Stack.basic)
      #expect(deferred.deferredReplacementProductId == Stack.basic)
      try await stack.settle()
      #expect(try await stack.answer("down", "premium").active, "a downgrade waits for the renewal")
      _ = try await stack.sim.advance(byMs: 26 * Self.day)
      let basic = try await stack.until("down", "basic") { $0.active && $0.productID == Stack.basic }
      #expect(basic.productID == Stack.basic)
      #expect(!(try await stack.until("down", "premium") { !$0.active }.active))

      let (raised, _) = try await stack.googleBuyAndSubmit(userId: "price")
      _ = try await stack.sim.googleChangePrice(raised.purchaseToken, newPriceMicros: 19_990_000)
      let (agreed, _) = try await stack.googleBuyAndSubmit(userId: "agreed")
      _ = try await stack.sim.googleChangePrice(agreed.purchaseToken, newPriceMicros: 19_990_000)
      _ = try await stack.sim.googleConfirmPriceChange(agreed.purchaseToken)
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      #expect(try await stack.until("price") { !$0.active }.state == .expired)
      try await stack.settle()
      let renewed = try await stack.answer("agreed")
      #expect(renewed.active && renewed.state == .active)
    }
  }

  @Test("while Google's API fails, a renewing subscriber keeps access; the state catches up after")
  func apiOutage() async throws {
    try await withStack { stack in
      let (purchase, _) = try await stack.googleBuyAndSubmit(userId: "g")
      // Acknowledged first (googleBuyAndSubmit waits): an outage that outlasts Google's 3-day
      // deadline would rightly end in a refund.
      try stack.sim.addFault(FaultRule(target: "google.api", mode: .error500, count: nil))
      _ = try await stack.sim.advance(byMs: 31 * Self.day)
      try await Task.sleep(for: .milliseconds(500))
      let during = try await stack.answer("g")
      #expect(during.active, "never revoke because a store call failed")
      stack.sim.clearFaults()
      let after = try await stack.until("g", timeout: .seconds(15)) {
        $0.active && $0.expiresAtMs > stack.sim.clockNowMs + 20 * Self.day
      }
      #expect(after.state == .active)
      #expect(try stack.sim.googlePurchaseSnapshot(purchase.purchaseToken).state == "SUBSCRIPTION_STATE_ACTIVE")
    }
  }

  @Test("a revoked refund or chargeback ends access; its notifications lost, the daily voided sweep catches it")
  func refunds() async throws {
    try await withStack { stack in
      let (purchase, _) = try await stack.googleBuyAndSubmit(userId: "g")
      _ = try await stack.sim.googleRefund(purchase.purchaseToken)
      // SUBSCRIPTION_REVOKED (the purchase now reads EXPIRED), then the voided purchase: revoked.
      let revoked = try await stack.until("g") { $0.state == .revoked }
      #expect(revoked.state == .revoked && !revoked.active)

      // A chargeback whose two notifications (SUBSCRIPTION_REVOKED, VOIDED_PURCHASE) are both lost.
      let (lost, _) = try await stack.googleBuyAndSubmit(userId: "h")
      // The purchase's own notification is out first, so the fault drops the chargeback's two.
      _ = await eventually { stack.sim.notifications.allSatisfy { $0.state != "pending" } }
      // And processed: read after the chargeback, it would find the purchase expired.
      try await stack.settle()
      try stack.sim.addFault(FaultRule(target: "google.notifications", mode: .drop, count: 2))
      _ = try await stack.sim.googleRefund(lost.purchaseToken, voidedReason: 7, voidedSource: 2)
      try await Task.sleep(for: .milliseconds(300))
      #expect(try await stack.answer("h").active, "nothing told the worker yet")
      _ = try await stack.sim.advance(byMs: Self.day + 60_000)
      let swept = try await stack.until("h", timeout: .seconds(15)) { !$0.active }
      #expect(!swept.active)

      let (lifetime, response) = try await stack.googleBuyAndSubmit(LocalStack.lifetime, userId: "l")
      #expect(response.status == .verified, "\(response.rejectionReason)")
      #expect(try await stack.answer("l").active)
      _ = try await stack.sim.googleRefund(lifetime.purchaseToken)
      #expect(!(try await stack.until("l") { !$0.active }.active))
    }
  }

  @Test("a refund without revocation (storesim google refund --keep) is not voided: entitled until expiry")
  func refundKeepsAccess() async throws {
    try await withStack { stack in
      let (purchase, _) = try await stack.googleBuyAndSubmit(userId: "k")
      let before = try await stack.answer("k")
      #expect(before.active)
      let refund = try await ChildProcess.runDetached([
        "storesim", "google", "refund", purchase.purchaseToken, "--keep", "--sim", "127.0.0.1:\(stack.sim.port)",
      ])
      #expect(refund.status == 0, "\(refund.stderr)")
      #expect(!(try stack.sim.googlePurchaseSnapshot(purchase.purchaseToken).voided))
      #expect(!stack.sim.notifications.contains { $0.notificationType == "VOIDED_PURCHASE" })
      // Past the daily voided-purchases sweep, and the expiry the user paid for: still entitled.
      _ = try await stack.sim.advance(byMs: Self.day + 60_000)
      try await stack.settle()
      #expect(try await stack.answer("k").active)
      _ = try await stack.sim.advance(byMs: before.expiresAtMs - stack.sim.clockNowMs - 60_000)
      try await stack.settle()
      let late = try await stack.answer("k")
      #expect(late.active && late.state != .revoked, "\(late.state)")
    }
  }

  @Test("left unacknowledged (the app acknowledges itself, and did not), Google refunds after 3 days")
  func unacknowledgedRefunded() async throws {
    try await withStack(googlePlay: { $0.acknowledge = false }, Self.unacknowledgedRefunded)
  }

  static func unacknowledgedRefunded(_ stack: Stack) async throws {
    do {
      let (purchase, _) = try await stack.googleBuyAndSubmit(userId: "g", acknowledged: false)
      #expect(try await stack.answer("g").active)
      #expect(!(try stack.sim.googlePurchaseSnapshot(purchase.purchaseToken).acknowledged))
      _ = try await stack.sim.advance(byMs: 3 * Self.day + 60_000)
      #expect(!(try await stack.until("g") { !$0.active }.active))
    }
  }

  @Test("a test purchase is refused; Play Billing data is checked first; a push without a valid token is not stored")
  func refusals() async throws {
    try await withStack { stack in
      let test = try await stack.googleBuy(testPurchase: true)
      let response = try await stack.googleSubmit(test.purchaseToken, userId: "t")
      #expect(response.status == .rejected)
      #expect(response.rejectionReason.contains("test purchase"), "\(response.rejectionReason)")

      // The app sends the Play Billing purchase data and signature along: checked first.
      let bought = try await stack.googleBuy()
      let signed = try await stack.googleSubmit(
        bought.purchaseToken, userId: "b", billing: (bought.originalJson, bought.signature))
      #expect(signed.status == .verified, "\(signed.rejectionReason)")
      let other = try await stack.googleBuy()
      let tampered = try await stack.googleSubmit(
        other.purchaseToken, userId: "b2",
        billing: (
          other.originalJson.replacingOccurrences(of: "\"acknowledged\":false", with: "\"acknowledged\":true"),
          other.signature
        ))
      #expect(tampered.status == .rejected)
      #expect(tampered.rejectionReason.contains("does not match"), "\(tampered.rejectionReason) \(other.originalJson)")
      let replayed = try await stack.googleSubmit(
        other.purchaseToken, userId: "b3", billing: (bought.originalJson, bought.signature))
      #expect(replayed.rejectionReason.contains("another purchase token"), "\(replayed.rejectionReason)")

      let port = await stack.local.workerPort
      let before = try await stack.worker.storage.inboxCounts()
      let body = Data(#"{"message":{"data":"e30=","messageId":"forged-1"}}"#.utf8)
      let unauthenticated = try await httpRequest("POST", port: port, path: "/notifications/google", body: body)
      #expect(unauthenticated.status == 401)
      let forged = try await httpRequest(
        "POST", port: port, path: "/notifications/google", body: body,
        headers: ["Authorization": "Bearer \(try Self.forgedToken())"])
      #expect(forged.status == 403)
      #expect(try await stack.worker.storage.inboxCounts() == before)

      // The Play Console's test notification is authentic: stored, acknowledged, changes nothing.
      try await stack.sim.googleSendTestNotification()
      _ = try await eventually {
        let counts = try await stack.worker.storage.inboxCounts()
        return counts.values.reduce(0, +) > before.values.reduce(0, +) && (counts["pending"] ?? 0) == 0
      }
    }
  }

  /// A push token shaped like Pub/Sub's, signed by a key Google never published.
  static func forgedToken() throws -> String {
    let header = try JSONSerialization.data(withJSONObject: ["alg": "RS256", "kid": "forged", "typ": "JWT"])
    let now = Int64(Date().timeIntervalSince1970)
    let claims = try JSONSerialization.data(withJSONObject: [
      "iss": "https://accounts.google.com", "aud": LocalStack.googlePushAudience,
      "email": "rtdn-push@tollgate-sim.iam.gserviceaccount.com", "email_verified": true, "iat": now,
      "exp": now + 3600,
    ])
    let input = Base64URL.encode(header) + "." + Base64URL.encode(claims)
    return input + "." + Base64URL.encode(try RS256.sign(Array(input.utf8), with: try RSAPrivateKey.generate()))
  }
}

import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateDemo
import TollgateTesting

/// Issue 25 item 5, through the real path (the simulator over HTTP, the worker, the service over
/// TCP): a Pub/Sub push's token is Google-signed but not tied to its body, so whoever captured one
/// genuine push's `Authorization` header can send any notification for an hour. A notification is
/// only a trigger: a voided purchase is what Google's voided purchases list and the purchase's own
/// state say when asked. And a worker without a push service account refuses to start.
@Suite("Google notifications are triggers, never evidence", .serialized)
struct GoogleNotificationTrustEndToEndTests {
  static let day: Int64 = 86_400_000

  /// A Pub/Sub push body around a DeveloperNotification for the stack's app.
  static func push(_ member: [String: Any], memberName: String, eventTimeMs: Int64, messageId: String) throws -> Data {
    let notification: [String: Any] = [
      "version": "1.0", "packageName": LocalStack.packageName, "eventTimeMillis": "\(eventTimeMs)",
      memberName: member,
    ]
    let data = try JSONSerialization.data(withJSONObject: notification).base64EncodedString()
    return try JSONSerialization.data(withJSONObject: [
      "message": ["data": data, "messageId": messageId, "publishTime": "2026-01-01T00:00:00.000Z"],
      "subscription": "projects/tollgate-sim/subscriptions/rtdn",
    ])
  }

  @Test("a forged voided notification with a genuine push token changes nobody's access")
  func forgedVoidChangesNothing() async throws {
    try await withHookedStack { stack, hooks in
      let (purchase, bought) = try await stack.googleBuyAndSubmit(userId: "victim")
      #expect(bought.status == .verified)
      _ = try await hooks.awaiting("purchased", for: "victim", stack: stack)
      // What a caller that may read learns, and what one captured push carries.
      let token = try #require(try await stack.client.getSubscription(userId: "victim").subscriptions.first)
        .storeSubscriptionID
      #expect(token == purchase.purchaseToken)
      let authorization = try await stack.sim.googlePushAuthorization()
      let port = await stack.local.workerPort
      let now = stack.sim.clockNowMs
      let forgeries: [(String, [String: Any])] = [
        ("voidedPurchaseNotification", ["purchaseToken": token, "productType": 1, "refundType": 1]),
        (
          "voidedPurchaseNotification",
          ["purchaseToken": token, "orderId": purchase.orderId, "productType": 1, "refundType": 1]
        ),
        ("subscriptionNotification", ["version": "1.0", "notificationType": 12, "purchaseToken": token]),
      ]
      for (index, (memberName, member)) in forgeries.enumerated() {
        let body = try Self.push(member, memberName: memberName, eventTimeMs: now, messageId: "forged-\(index)")
        let posted = try await httpRequest(
          "POST", port: port, path: "/notifications/google", body: body, headers: ["Authorization": authorization])
        // The token is genuine: the push is stored, and is a trigger to ask Google.
        #expect(posted.status == 200, "\(posted.body)")
      }
      try await stack.settle(timeout: .seconds(30))

      // Google says ACTIVE and lists nothing voided: nothing changed, nothing was told.
      #expect(try stack.sim.googlePurchaseSnapshot(token).state == "SUBSCRIPTION_STATE_ACTIVE")
      let answer = try await stack.answer("victim")
      #expect(answer.active && answer.state != .revoked, "\(answer.state)")
      let events = try await stack.events("victim")
      #expect(!events.contains("refunded") && !events.contains("revoked"), "\(events)")
      // Webhooks go out in order: once a later genuine change has arrived, none came before it.
      _ = try await stack.sim.googleCancel(token)
      let kinds = try await hooks.awaiting("opted_out", for: "victim", stack: stack)
      #expect(kinds.contains("opted_out"), "\(kinds)")
      #expect(!kinds.contains("refunded") && !kinds.contains("revoked"), "\(kinds)")
      #expect(try await stack.answer("victim").active)
    }
  }

  @Test("a genuine void still revokes once Google's voided purchases list confirms it")
  func genuineVoidRevokes() async throws {
    try await withHookedStack { stack, hooks in
      let (purchase, _) = try await stack.googleBuyAndSubmit(userId: "buyer")
      _ = try await hooks.awaiting("purchased", for: "buyer", stack: stack)
      // Google voids it: SUBSCRIPTION_REVOKED and VOIDED_PURCHASE are pushed, the order is listed.
      _ = try await stack.sim.googleRefund(purchase.purchaseToken, voidedReason: 1)
      #expect(try stack.sim.googlePurchaseSnapshot(purchase.purchaseToken).voided)
      let revoked = try await stack.until("buyer", timeout: .seconds(30)) { $0.state == .revoked }
      #expect(!revoked.active && revoked.state == .revoked)
      let kinds = try await hooks.awaiting("refunded", for: "buyer", stack: stack)
      #expect(kinds.filter { $0 == "refunded" }.count == 1, "\(kinds)")
      let refunded = try #require(hooks.payloads("buyer").first { $0["kind"] as? String == "refunded" })
      #expect(refunded["reason"] as? String == "refunded")
      #expect((refunded["transactionId"] as? String)?.hasPrefix(purchase.orderId) == true, "\(refunded)")
    }
  }

  @Test(
    "a worker whose Google app names no push service account refuses to start; acceptAnyPushServiceAccount starts it",
    .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
  func pushServiceAccountRequired() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-push-account")
    defer { dir.remove() }
    func write(_ google: [String: Any]) throws {
      let app: [String: Any] = [
        "packageName": "com.example.app", "serviceAccountKeyEnv": "GOOGLE_KEY", "pushAudience": "tollgate",
        "apiBaseURL": "http://127.0.0.1:9", "tokenURI": "http://127.0.0.1:9/token",
      ]
      let config: [String: Any] = [
        "apps": [["id": "android", "store": "google_play", "packageName": "com.example.app"]],
        "entitlements": [["id": "premium"]],
        "products": [["productId": "monthly", "store": "google_play", "entitlements": ["premium"]]],
        "worker": ["listen": "127.0.0.1:0", "adminListen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite")],
        "googlePlay": [app.merging(google) { $1 }],
      ]
      try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir.file("config.json")))
    }
    let environment = ["GOOGLE_KEY": try Vectors.string("google/aporat-oauth/test-service-account-key.json")]
    let arguments = ["worker", "--config", dir.file("config.json"), "--create", "--log-level", "warning"]

    try write([:])
    let child = try ChildProcess(arguments, environment: environment)
    // Refused, it exits before it listens (the wait ends at its end of output); a worker that
    // starts anyway is stopped, and the test fails.
    let listening = await child.waitForLine(containing: "notifications on", timeoutSeconds: 30)
    child.terminate()
    let refused = child.finish()
    #expect(listening == nil, "the worker started without a push service account")
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("googlePlay[0] (com.example.app): pushServiceAccount is required"), "\(refused)")
    #expect(refused.stderr.contains("acceptAnyPushServiceAccount: true"), "\(refused.stderr)")

    try write(["acceptAnyPushServiceAccount": true])
    let worker = try ChildProcess(arguments, environment: environment)
    defer { worker.terminate() }
    let started = await worker.waitForLine(containing: "notifications on")
    #expect(started != nil, "the worker did not start with acceptAnyPushServiceAccount: true")
  }

  @Test("a 2-day-old copy of Play Billing purchase data moves nothing; data fresh from a purchase does")
  func billingDataFreshness() async throws {
    try await withStack(transferPolicy: .transferToNewest) { stack in
      let purchase = try await stack.googleBuy()
      let owned = try await stack.local.googleSubmit(purchase, userId: "owner")
      #expect(owned.status == .verified, "\(owned.rejectionReason)")
      _ = try await stack.sim.advance(byMs: 2 * Self.day)
      #expect(try await stack.answer("owner").active)

      let copied = try await stack.googleSubmit(
        purchase.purchaseToken, userId: "thief", billing: (purchase.originalJson, purchase.signature))
      #expect(copied.status == .rejected)
      #expect(
        copied.rejectionReason.contains("purchase made 48 h ago (its purchaseTime), more than the 24 h"),
        "\(copied.rejectionReason)")
      #expect(try await stack.answer("owner").active)
      #expect(!(try await stack.answer("thief").active))
      #expect(try await stack.events("owner").contains("transfer_refused"))

      // Within the window of its purchaseTime, the signed data moves a purchase as before.
      let fresh = try await stack.googleBuy()
      #expect(try await stack.local.googleSubmit(fresh, userId: "first").status == .verified)
      let moved = try await stack.googleSubmit(
        fresh.purchaseToken, userId: "second", billing: (fresh.originalJson, fresh.signature))
      #expect(moved.status == .verified, "\(moved.rejectionReason)")
      #expect(try await stack.until("second", timeout: .seconds(30)) { $0.active }.active)
      #expect(!(try await stack.until("first", timeout: .seconds(30)) { !$0.active }.active))
      #expect(try await stack.events("second").contains("transferred"))
    }
  }
}

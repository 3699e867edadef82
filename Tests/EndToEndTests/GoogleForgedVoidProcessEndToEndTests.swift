import Foundation
import Logging
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateTesting

/// Issue 25 item 5 as an attacker meets it: `tollgate serve` and `tollgate worker` as processes,
/// the simulated Google over HTTP. The attacker reads the victim's purchase token through
/// GetSubscription, holds the `Authorization` header of one genuine Pub/Sub push, and posts forged
/// VOIDED_PURCHASE and SUBSCRIPTION_REVOKED notifications with it.
@Suite("A forged Google void against serve and the worker as processes", .serialized)
struct GoogleForgedVoidProcessEndToEndTests {
  @Test("a forged voided notification changes nobody's access; no refunded or revoked webhook goes out")
  func forgedVoid() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-forged-void")
    defer { dir.remove() }
    let hooks = try await ScriptedHTTPServer.start()
    for _ in 0..<50 { hooks.enqueue("POST", "/hooks", .init(status: 204)) }
    let port = try await Stack.freePort()
    var simConfig = StoreSimulator.Config.defaults
    simConfig.notificationRetryDelaysMs = [200, 500]
    simConfig.google.apps[0].notificationURL = "http://127.0.0.1:\(port)/notifications/google"
    let sim = try await StoreSimulator.start(config: simConfig, logger: Logger(label: "forged-void.sim"))
    do {
      try await Self.attack(sim: sim, app: simConfig.google.apps[0], port: port, hooks: hooks, dir: dir)
    } catch {
      await sim.stop()
      await hooks.stop()
      throw error
    }
    await sim.stop()
    await hooks.stop()
  }

  static func attack(
    sim: StoreSimulator, app: StoreSimulator.GoogleApp, port: Int, hooks: ScriptedHTTPServer, dir: TemporaryDirectory
  ) async throws {
    let product = "com.example.monthly"
    let database = dir.file("tollgate.sqlite")
    let config: [String: Any] = [
      "apps": [["id": "android", "store": "google_play", "packageName": app.packageName]],
      "entitlements": [["id": "premium"]],
      "products": [["productId": product, "store": "google_play", "entitlements": ["premium"]]],
      "worker": [
        "listen": "127.0.0.1:\(port)", "adminListen": "127.0.0.1:0", "database": database, "pollMs": 5,
        "backoffBaseMs": 50, "backoffMaxMs": 200, "followClockURL": sim.baseURL,
      ],
      "googlePlay": [
        [
          "packageName": app.packageName, "serviceAccountKeyEnv": "GOOGLE_KEY", "apiBaseURL": sim.googleAPIBaseURL,
          "tokenURI": sim.googleTokenURI, "jwksURL": sim.googleJWKSURL,
          "pushAudience": app.effectivePushAudience ?? "", "pushServiceAccount": app.pushServiceAccount,
        ]
      ],
      "webhooks": [["url": hooks.baseURL + "/hooks", "secretEnv": "HOOK_SECRET"]],
    ]
    try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: dir.file("config.json")))
    let serve = try await ServeAccessEndToEndTests.serve(["listen": "127.0.0.1:0", "database": database], in: dir)
    defer { serve.process.terminate() }
    let worker = try ChildProcess(
      ["worker", "--config", dir.file("config.json"), "--create", "--log-level", "warning"],
      environment: ["GOOGLE_KEY": sim.googleServiceAccountKeyJSON, "HOOK_SECRET": "s3cret"])
    defer { worker.terminate() }
    guard let line = await worker.waitForLine(containing: "notifications on") else {
      worker.terminate()
      throw WorkerDidNotStart(stderr: worker.finish().stderr)
    }
    let adminPort = try WorkerProcesses.ports(announcedIn: line).adminPort
    let client = try ServeAccessEndToEndTests.client(serve.tcp)

    let purchase = try await sim.googlePurchase(.init(productId: product, acknowledged: true))
    var submit = Tollgate_V1_SubmitPurchaseRequest()
    submit.userID = "victim"
    submit.store = .googlePlay
    submit.purchaseToken = purchase.purchaseToken
    submit.productID = product
    submit.waitMs = 10_000
    #expect(try await client.submitPurchase(submit, timeout: .seconds(15)).status == .verified)

    // What the attacker holds: the token any reader sees, and one push's Authorization header.
    let token = try #require(try await client.getSubscription(userId: "victim").subscriptions.first)
      .storeSubscriptionID
    let authorization = try await sim.googlePushAuthorization()
    let now = sim.clockNowMs
    let forgeries: [(String, [String: Any])] = [
      ("voidedPurchaseNotification", ["purchaseToken": token, "productType": 1, "refundType": 1]),
      ("subscriptionNotification", ["version": "1.0", "notificationType": 12, "purchaseToken": token]),
    ]
    for (index, (memberName, member)) in forgeries.enumerated() {
      let body = try GoogleNotificationTrustEndToEndTests.push(
        member, memberName: memberName, eventTimeMs: now, messageId: "forged-process-\(index)")
      let posted = try await httpRequest(
        "POST", port: port, path: "/notifications/google", body: body, headers: ["Authorization": authorization])
      #expect(posted.status == 200, "the genuine token is accepted: \(posted.body)")
    }
    // Every stored push processed (the worker's /health counts its inbox).
    let drained = await eventually(timeout: .seconds(30)) {
      guard let health = try? await httpRequest("GET", port: adminPort, path: "/health"),
        let object = try? JSONSerialization.jsonObject(with: Data(health.body.utf8)) as? [String: Any],
        let inbox = object["inbox"] as? [String: Any]
      else { return false }
      func count(_ state: String) -> Int { (inbox[state] as? NSNumber)?.intValue ?? 0 }
      // The submission and the two forged pushes at least.
      return count("pending") + count("processing") == 0 && count("verified") >= 3
    }
    #expect(drained != nil, "the forged pushes were not processed")

    #expect(try sim.googlePurchaseSnapshot(token).state == "SUBSCRIPTION_STATE_ACTIVE")
    let followed = await eventually(timeout: .seconds(5)) {
      (try? await client.isSubscriber(userId: "victim", entitlement: "premium").active) == true
    }
    #expect(followed != nil)
    let answer = try await client.isSubscriber(userId: "victim", entitlement: "premium")
    #expect(answer.active && answer.state != .revoked, "\(answer.state)")
    // Webhooks go out in order: once a later genuine change arrived, none came before it.
    _ = try await sim.googleCancel(token)
    let kinds = { hooks.recorded.compactMap { $0.jsonBody?["kind"] as? String } }
    let optedOut = await eventually(timeout: .seconds(20)) { kinds().contains("opted_out") }
    #expect(optedOut != nil, "\(kinds())")
    #expect(!kinds().contains("refunded") && !kinds().contains("revoked"), "\(kinds())")
    #expect(try await client.isSubscriber(userId: "victim", entitlement: "premium").active)

    await client.close()
    worker.terminate()
    _ = worker.finish()
    serve.process.terminate()
    _ = serve.process.finish()
  }
}

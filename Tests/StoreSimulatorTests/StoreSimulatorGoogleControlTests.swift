import AsyncHTTPClient
import Foundation
import StoreSimulator
import Testing
import TollgateTesting

/// The `/sim/google/…` control API through `StoreSimulatorControlClient`, as the CLI drives it.
@Suite("Store simulator, Google Play: control API")
struct StoreSimulatorGoogleControlTests {
  @Test("purchase, pause, show, cancel and refund over HTTP; errors name the problem")
  func controlAPI() async throws {
    try await GoogleHarness.run { harness in
      let control = StoreSimulatorControlClient(baseURL: harness.sim.baseURL, httpClient: .shared)
      let bought = try await control.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", offer: "trial", acknowledged: true))
      #expect(bought.isSuccess)
      let purchase = try JSONDecoder().decode(GooglePurchaseResult.self, from: Data(bought.body.utf8))
      let token = purchase.purchaseToken
      #expect(purchase.expiryTimeMs == GoogleHarness.startMs + 7 * SimDuration.dayMs)

      let paused = try await control.google("pause", purchaseToken: token, json: ["duration": "30d"])
      let snapshot = try JSONDecoder().decode(GooglePurchaseSnapshot.self, from: Data(paused.body.utf8))
      #expect(snapshot.scheduledPauseMs == 30 * SimDuration.dayMs)
      #expect(try await control.google("resume", purchaseToken: token).isSuccess)
      #expect(try await control.google("cancel", purchaseToken: token).isSuccess)
      let shown = try await control.send("GET", "/sim/google/purchases/\(token)")
      let canceled = try JSONDecoder().decode(GooglePurchaseSnapshot.self, from: Data(shown.body.utf8))
      #expect(canceled.state == "SUBSCRIPTION_STATE_CANCELED" && canceled.cancellation == .user)
      #expect(try await control.google("restart", purchaseToken: token).isSuccess)
      let refunded = try await control.google(
        "refund", purchaseToken: token, json: ["voidedReason": 7, "voidedSource": 2])
      #expect(try JSONDecoder().decode(GooglePurchaseSnapshot.self, from: Data(refunded.body.utf8)).voided)

      let unknown = try await control.google("explode", purchaseToken: token)
      #expect(unknown.status == 404 && unknown.body.contains("unknown action"))
      let conflict = try await control.google("restart", purchaseToken: token)
      #expect(conflict.status == 409)
      let badProduct = try await control.googlePurchase(GooglePurchaseRequest(productId: "com.example.nothing"))
      #expect(badProduct.status == 400)
      let key = try await control.send("GET", "/sim/google/service-account")
      let keyJSON = try JSONSerialization.jsonObject(with: Data(key.body.utf8)) as? [String: Any]
      #expect(keyJSON?["token_uri"] as? String == harness.sim.googleTokenURI)
      let fault = try await control.send(
        "POST", "/sim/faults", json: ["target": "google.notifications", "mode": "stale"])
      #expect(fault.status == 400)
    }
  }

  @Test("the key file is reused across restarts and its token_uri follows the new port")
  func credentialsPersist() async throws {
    let directory = try TemporaryDirectory(prefix: "storesim-google-restart")
    defer { directory.remove() }
    var config = StoreSimulator.Config.defaults
    config.dataDirectory = directory.path
    let first = try await StoreSimulator.start(config: config, logger: GoogleHarness.logger)
    let firstKey = first.googleServiceAccountKeyJSON
    let firstKid = first.googlePushSigningKeyId
    await first.stop()
    let second = try await StoreSimulator.start(config: config, logger: GoogleHarness.logger)
    let path = try #require(second.googleServiceAccountKeyPath)
    let written = try String(contentsOfFile: path, encoding: .utf8)
    await second.stop()
    #expect(second.googlePushSigningKeyId == firstKid)
    let privateKey = { (json: String) in
      (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["private_key"] as? String
    }
    #expect(privateKey(written) == privateKey(firstKey) && privateKey(written) != nil)
    #expect(written.contains(second.googleTokenURI))
  }

  @Test("with a process following the clock over HTTP, a push after a jump waits for it to poll")
  func followersCatchUp() async throws {
    try await GoogleHarness.run { harness in
      try await Self.followAndAdvance(harness)
    }
  }

  static func followAndAdvance(_ harness: GoogleHarness) async throws {
    let sim = harness.sim
    let token = try await sim.googlePurchase(
      GooglePurchaseRequest(productId: "com.example.monthly", acknowledged: true)
    ).purchaseToken
    try await sim.googleCancel(token)
    let follower = FollowedClock(virtualMs: 0)
    let control = StoreSimulatorControlClient(baseURL: sim.baseURL, httpClient: .shared)
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        while !Task.isCancelled {
          let answer = try await control.clock()
          let clock = try JSONDecoder().decode([String: Int64].self, from: Data(answer.body.utf8))
          follower.observe(virtualMs: clock["nowMs"] ?? 0)
          try? await Task.sleep(for: .milliseconds(100))
        }
      }
      // The simulator waits for followers it has heard from: let the first poll land (a fixed
      // 250 ms was not always enough under the full suite on two cores).
      let startMs = sim.clockNowMs
      #expect(try await eventually(seconds: 30) { follower.nowMs() >= startMs })
      try await sim.advance(byMs: 30 * SimDuration.dayMs + 1)
      #expect(follower.nowMs() >= sim.clockNowMs)
      group.cancelAll()
    }
    let expired = try #require(try harness.pushes().last)
    #expect(expired.notification.subscriptionNotification?.notificationType == 13)
    let claims = try await harness.authenticator().authenticate(authorization: expired.authorization).get()
    #expect(claims.iat == sim.clockNowMs / 1000)
  }
}

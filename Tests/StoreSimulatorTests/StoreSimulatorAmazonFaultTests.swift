import AsyncHTTPClient
import Foundation
import StoreSimulator
import Testing
import TollgateTesting

@Suite("Store simulator, Amazon: faults and the control API")
struct StoreSimulatorAmazonFaultTests {
  @Test("amazon.rvs: 500/503/504, 429 with Retry-After, 496/497 forced, html200, truncatedJSON, stale")
  func rvsFaults() async throws {
    try await AmazonHarness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.amazonPurchase(.init(sku: "com.example.premium.monthly"))
      func status() async throws -> Int { try await harness.rvs(purchase.receiptId, user: purchase.userId).status }
      for code in [500, 503, 504] {
        try sim.addFault(FaultRule(target: "amazon.rvs", mode: .error500, status: code == 500 ? nil : code))
        #expect(try await status() == code)
      }
      #expect(try await status() == 200, "each rule applied once")
      try sim.addFault(FaultRule(target: "amazon.rvs", mode: .rateLimit, retryAfterSeconds: 7))
      let url =
        sim.amazonRVSBaseURL + "/version/1.0/verifyReceiptId/developer/" + AmazonHarness.encoded(AmazonHarness.secret)
        + "/user/" + AmazonHarness.encoded(purchase.userId) + "/receiptId/" + AmazonHarness.encoded(purchase.receiptId)
      let limited = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
      #expect(limited.status.code == 429)
      #expect(limited.headers.first(name: "Retry-After") == "7")
      try sim.addFault(FaultRule(target: "amazon.rvs", mode: .unauthorized))
      #expect(try await status() == 496)
      try sim.addFault(FaultRule(target: "amazon.rvs", mode: .unauthorized, status: 497))
      #expect(try await status() == 497)
      try sim.addFault(FaultRule(target: "amazon.rvs", mode: .html200))
      let html = try await harness.rvs(purchase.receiptId, user: purchase.userId)
      #expect(html.status == 200 && html.contentType?.hasPrefix("text/html") == true)
      try sim.addFault(FaultRule(target: "amazon.rvs", mode: .truncatedJSON))
      let cut = try await harness.rvs(purchase.receiptId, user: purchase.userId)
      #expect(cut.status == 200 && cut.json == nil)

      // stale: the answer from before the refund, replayed.
      try await sim.amazonRefund(purchase.receiptId)
      try sim.addFault(FaultRule(target: "amazon.rvs", mode: .stale))
      let stale = try await harness.rvs(purchase.receiptId, user: purchase.userId)
      #expect(stale.json?["cancelDate"] is NSNull)
      let fresh = try await harness.rvs(purchase.receiptId, user: purchase.userId)
      #expect(fresh.json?["cancelDate"] is NSNumber)

      #expect(throws: StoreSimulatorError.self) {
        try sim.addFault(FaultRule(target: "amazon.rvs", mode: .error500, status: 502))
      }
      #expect(throws: StoreSimulatorError.self) {
        try sim.addFault(FaultRule(target: "amazon.rvs", mode: .badSignature))
      }
      #expect(throws: StoreSimulatorError.self) {
        try sim.addFault(FaultRule(target: "amazon.notifications", mode: .stall))
      }
    }
  }

  @Test("amazon.notifications: dropped, duplicated with the same MessageId, a first attempt failing then retried")
  func notificationFaults() async throws {
    try await AmazonHarness.run { harness in
      let sim = harness.sim
      try sim.addFault(FaultRule(target: "amazon.notifications", mode: .drop))
      _ = try await sim.amazonPurchase(.init(sku: "com.example.lifetime"))
      try sim.addFault(FaultRule(target: "amazon.notifications", mode: .duplicate))
      _ = try await sim.amazonPurchase(.init(sku: "com.example.coins"))
      try await harness.waitForNotifications(2)
      #expect(harness.notificationTypes == ["CONSUMABLE_PURCHASED", "CONSUMABLE_PURCHASED"])
      let ids = harness.messages.filter { $0["Type"] as? String == "Notification" }.compactMap {
        $0["MessageId"] as? String
      }
      #expect(Set(ids).count == 1, "a duplicate keeps its MessageId")
      #expect(sim.notifications.contains { $0.store == "amazon" && $0.state == "dropped" })

      try sim.addFault(FaultRule(target: "amazon.notifications", mode: .error500))
      _ = try await sim.amazonPurchase(.init(sku: "com.example.premium.monthly"))
      try await harness.waitForNotifications(3)
      #expect(harness.notificationTypes.last == "SUBSCRIPTION_PURCHASED")
      let retried = try await eventually {
        let record = sim.notifications.last { $0.notificationType == "SUBSCRIPTION_PURCHASED" }
        return (record?.attempts.count ?? 0) >= 2 && record?.state == "delivered"
      }
      #expect(retried, "the first attempt failed, a retry delivered it")
    }
  }

  @Test("a receiver that answers 500 gets the same signed message again")
  func receiverRetries() async throws {
    try await AmazonHarness.run(receiverReplies: [200, 500] + Array(repeating: 200, count: 20)) { harness in
      _ = try await harness.sim.amazonPurchase(.init(sku: "com.example.lifetime"))
      try await harness.waitForNotifications(2)
      let bodies = harness.messages.filter { $0["Type"] as? String == "Notification" }
      #expect(bodies.count == 2)
      #expect(bodies.first?["Signature"] as? String == bodies.last?["Signature"] as? String)
      #expect(try await AmazonHarness.verifySignature(try #require(bodies.last)))
    }
  }

  @Test("the control API and client: purchase, show, actions (percent-encoded receipt ids), notification URL")
  func controlAPI() async throws {
    try await AmazonHarness.run { harness in
      let control = StoreSimulatorControlClient(baseURL: harness.sim.baseURL, httpClient: .shared)
      let bought = try await control.amazonPurchase(
        .init(sku: "com.example.premium", userId: "user/with+chars=", freeTrial: true))
      #expect(bought.isSuccess, "\(bought.body)")
      let purchase = try JSONDecoder().decode(AmazonPurchaseResult.self, from: Data(bought.body.utf8))
      #expect(purchase.productId == "com.example.premium.monthly")
      #expect(purchase.userId == "user/with+chars=")
      let shown = try await control.amazonReceipt(purchase.receiptId)
      #expect(shown.isSuccess)
      #expect(shown.body.contains(#""subscriptionState":"active""#))
      let off = try await control.amazon("auto-renew", receiptId: purchase.receiptId, json: ["enabled": false])
      #expect(off.isSuccess && off.body.contains(#""autoRenewing":false"#))
      let changed = try await control.amazon(
        "change-tier", receiptId: purchase.receiptId, json: ["sku": "com.example.basic.monthly", "immediate": true])
      #expect(changed.isSuccess, "\(changed.body)")
      #expect(changed.body.contains(#""productId":"com.example.basic.monthly""#))
      let unknown = try await control.amazon("pause", receiptId: purchase.receiptId)
      #expect(unknown.status == 404)
      let missing = try await control.amazonReceipt("nope:3:11#1")
      #expect(missing.status == 404)

      let moved = try await control.amazonSetNotificationURL(harness.receiver.baseURL + AmazonHarness.path)
      #expect(moved.body.contains("pendingConfirmation"))
      let confirmations = harness.messages.filter { $0["Type"] as? String == "SubscriptionConfirmation" }
      #expect(confirmations.count == 2)
      try await harness.confirmSubscription()
      #expect(try harness.sim.amazonNotificationEndpoint() == "confirmed")
      let certificate = try await control.send("GET", "/sim/amazon/sns-certificate")
      #expect(certificate.body == harness.sim.amazonSigningCertificatePEM)
    }
  }

  @Test("the config file's amazon section")
  func configFile() async throws {
    let directory = try TemporaryDirectory(prefix: "storesim-amazon-config")
    defer { directory.remove() }
    let json = """
      {"amazon": {"apps": [{"appPackageName": "com.example.kindle", "sharedSecret": "s", "topicArn": "arn:aws:sns:eu-west-1:1:t"}],
       "subscriptions": [{"parentProductId": "p", "termSku": "p.weekly", "period": "7d", "term": "1 Week", "freeTrial": "3d"}],
       "entitlements": ["e"], "consumables": [], "newReceiptPerTerm": false, "signatureVersion": 1,
       "receiptRetention": "30d", "billingRetryAfterGrace": "2d"}}
      """
    try Data(json.utf8).write(to: URL(fileURLWithPath: directory.path + "/sim.json"))
    let config = try StoreSimulator.Config.load(path: directory.path + "/sim.json")
    #expect(config.amazon.apps.first?.appPackageName == "com.example.kindle")
    #expect(config.amazon.apps.first?.topicArn == "arn:aws:sns:eu-west-1:1:t")
    #expect(config.amazon.subscriptions.first?.periodMs == 7 * SimDuration.dayMs)
    #expect(config.amazon.subscriptions.first?.freeTrialMs == 3 * SimDuration.dayMs)
    #expect(config.amazon.entitlements == ["e"])
    #expect(config.amazon.newReceiptPerTerm == false)
    #expect(config.amazon.signatureVersion == 1)
    #expect(config.amazon.receiptRetentionMs == 30 * SimDuration.dayMs)
    #expect(config.amazon.billingRetryAfterGraceMs == 2 * SimDuration.dayMs)
    #expect(StoreSimulator.Config.defaults.amazon.apps.first?.sharedSecret == "sim-shared-secret")
  }
}

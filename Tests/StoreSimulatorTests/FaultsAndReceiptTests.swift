import AppStore
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StoreSimulator
import Testing

@Suite("Store simulator: verifyReceipt, faults and the HTTP control API")
struct FaultsAndReceiptTests {
  func receiptClient(_ sim: StoreSimulator, secret: String?) -> VerifyReceiptClient {
    VerifyReceiptClient(
      config: .init(
        productionURL: sim.baseURL + "/verifyReceipt", sandboxURL: sim.baseURL + "/sandbox/verifyReceipt",
        sharedSecret: secret),
      httpClient: .shared, logger: Harness.logger)
  }

  @Test("verifyReceipt: 21007 from production then 0 at sandbox, 21004 on a wrong secret, 21002 on garbage")
  func verifyReceipt() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let purchase = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly", offer: "intro"))
      try await sim.advance(byMs: 31 * SimDuration.dayMs)
      let outcome = try await receiptClient(sim, secret: "s3cret").verify(receiptData: purchase.receiptData)
      #expect(outcome.endpoint == .sandbox)
      #expect(outcome.status == 0)
      let response = try unwrap(VerifyReceiptResponse.decode(outcome.body))
      #expect(response.environment == "Sandbox")
      #expect(response.bundleId == Harness.bundleId)
      let transactions = response.latestReceiptInfo.sorted { ($0.purchaseDateMs ?? 0) < ($1.purchaseDateMs ?? 0) }
      #expect(transactions.map(\.transactionId).count == 2)
      #expect(transactions.first?.transactionId == purchase.transactionId)
      #expect(transactions.first?.isInIntroOfferPeriod == true)
      #expect(transactions.first?.isTrialPeriod == false)
      #expect(transactions.last?.expiresDateMs == Harness.startMs + 60 * SimDuration.dayMs)
      #expect(response.pendingRenewalInfo.first?.autoRenewStatus == true)
      #expect(response.latestReceipt == purchase.receiptData)

      let production = try await receiptClient(sim, secret: "s3cret").verify(
        receiptData: purchase.receiptData, startAt: .production)
      #expect(production.endpoint == .sandbox)
      let wrong = try await receiptClient(sim, secret: "nope").verify(
        receiptData: purchase.receiptData, startAt: .sandbox)
      #expect(wrong.status == 21004)
      let garbage = try await receiptClient(sim, secret: "s3cret").verify(receiptData: "bm90IGEgcmVjZWlwdA==")
      #expect(garbage.status == 21002)
    }
  }

  @Test("API faults: a 500 then success, a 429 with Retry-After, a slow answer")
  func apiFaults() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      let id = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly")).originalTransactionId
      try sim.addFault(FaultRule(target: "apple.api", mode: .error500, count: 1))
      do {
        _ = try await harness.status(id)
        Issue.record("expected a 500")
      } catch let error as AppStoreAPIError {
        #expect(error.code == .serverError)
      }
      #expect(try await harness.status(id) == 1)
      try sim.addFault(FaultRule(target: "apple.api", mode: .rateLimit, count: 1, retryAfterSeconds: 7))
      do {
        _ = try await harness.status(id)
        Issue.record("expected a 429")
      } catch let error as AppStoreAPIError {
        #expect(error.code == .rateLimited)
        #expect(error.retryAfterMs == 7_000)
      }
      try sim.addFault(FaultRule(target: "apple.api", mode: .slow, count: 1, delayMs: 300))
      let started = Date()
      #expect(try await harness.status(id) == 1)
      #expect(Date().timeIntervalSince(started) >= 0.3)
      #expect(sim.activeFaults.isEmpty)
      #expect(throws: StoreSimulatorError.self) { try sim.addFault(FaultRule(target: "apple.api", mode: .drop)) }
    }
  }

  @Test("notification faults: dropped, duplicated with the same UUID, retried after the receiver's 500")
  func notificationFaults() async throws {
    try await Harness.run(receiverReplies: [200, 200, 500] + Array(repeating: 200, count: 10)) { harness in
      let sim = harness.sim
      try sim.addFault(FaultRule(target: "apple.notifications", mode: .drop, count: 1))
      let id = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly")).originalTransactionId
      #expect(sim.notifications.first?.state == "dropped")
      #expect(try harness.received().isEmpty)

      try sim.addFault(FaultRule(target: "apple.notifications", mode: .duplicate, count: 1))
      try await sim.setAutoRenew(id, enabled: false)
      let duplicates = try harness.received()
      #expect(duplicates.count == 2)
      #expect(duplicates[0].notificationUUID == duplicates[1].notificationUUID)
      #expect(duplicates.allSatisfy { $0.subtype == "AUTO_RENEW_DISABLED" })

      // The receiver answers 500 (3rd reply) then 200: delivered on the first retry.
      try await sim.setAutoRenew(id, enabled: true)
      #expect(try await eventually { sim.notifications.last?.state == "delivered" })
      #expect(sim.notifications.last?.attempts.map(\.httpStatus) == [500, 200])
      #expect(try harness.received().map(\.subtype).suffix(2) == ["AUTO_RENEW_ENABLED", "AUTO_RENEW_ENABLED"])
    }
  }

  @Test("notification reorder: a held notification is delivered after the next one")
  func reorder() async throws {
    try await Harness.run { harness in
      let sim = harness.sim
      try sim.addFault(FaultRule(target: "apple.notifications", mode: .reorder, count: 1))
      let id = try await sim.purchase(ApplePurchaseRequest(productId: "com.example.monthly")).originalTransactionId
      try await sim.setAutoRenew(id, enabled: false)
      #expect(try harness.received().map(\.notificationType) == ["DID_CHANGE_RENEWAL_STATUS", "SUBSCRIBED"])
    }
  }

  @Test("the HTTP control API: purchase, advance by \"31d\", clock, subscription, notifications")
  func controlAPI() async throws {
    try await Harness.run { harness in
      let base = harness.sim.baseURL
      func call(_ method: HTTPMethod, _ path: String, _ json: String? = nil) async throws -> (Int, [String: Any]) {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let json { request.body = .bytes(ByteBuffer(string: json)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
        return (Int(response.status.code), object ?? [:])
      }
      let (status, purchase) = try await call(
        .POST, "/sim/apple/purchases", #"{"productId":"com.example.monthly","offer":"trial"}"#)
      #expect(status == 200)
      let id = try unwrap(purchase["originalTransactionId"] as? String)
      let (_, advanced) = try await call(.POST, "/sim/clock/advance", #"{"by":"31d"}"#)
      #expect((advanced["nowMs"] as? NSNumber)?.int64Value == Harness.startMs + 31 * SimDuration.dayMs)
      let (_, clock) = try await call(.GET, "/sim/clock")
      #expect((clock["nowMs"] as? NSNumber)?.int64Value == harness.sim.clockNowMs)
      let (_, subscription) = try await call(.POST, "/sim/apple/subscriptions/\(id)/fail-renewals")
      #expect(subscription["failingRenewals"] as? Bool == true)
      let (missing, _) = try await call(.POST, "/sim/apple/subscriptions/42/refund")
      #expect(missing == 404)
      let (bad, _) = try await call(.POST, "/sim/faults", #"{"target":"apple.nowhere","mode":"error500"}"#)
      #expect(bad == 400)
      #expect(harness.sentTypes == ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW"])
    }
  }

  @Test("durations: ISO periods, shorthand and ms")
  func durations() {
    #expect(SimDuration.milliseconds("P1M") == 30 * SimDuration.dayMs)
    #expect(SimDuration.milliseconds("P1Y") == 365 * SimDuration.dayMs)
    #expect(SimDuration.milliseconds("P1W") == 7 * SimDuration.dayMs)
    #expect(SimDuration.milliseconds("PT5M") == 5 * SimDuration.minuteMs)
    #expect(SimDuration.milliseconds("31d") == 31 * SimDuration.dayMs)
    #expect(SimDuration.milliseconds("12h") == 12 * SimDuration.hourMs)
    #expect(SimDuration.milliseconds("90m") == 90 * SimDuration.minuteMs)
    #expect(SimDuration.milliseconds("30s") == 30_000)
    #expect(SimDuration.milliseconds("1500") == 1_500)
    #expect(SimDuration.milliseconds("soon") == nil)
  }
}

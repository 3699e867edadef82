import Foundation
import Logging
import StoreSimulator
import Testing
import TollgateCrypto
import TollgateDemo
import TollgateTesting
import TollgateWorker

@Suite("Outbound webhooks", .serialized)
struct WebhookEndToEndTests {
  @Test("state changes reach the company's endpoint signed with HMAC-SHA256, retried after a 500, in order")
  func signedAtLeastOnce() async throws {
    let receiver = try await ScriptedHTTPServer.start()
    receiver.enqueue("POST", "/hooks", .init(status: 500))
    for _ in 0..<20 { receiver.enqueue("POST", "/hooks", .init(status: 204)) }
    let dir = try TemporaryDirectory(prefix: "tollgate-hooks")
    defer { dir.remove() }
    do {
      try await LocalStack.run(
        directory: dir.path, webhooks: [WebhookSettings(url: receiver.baseURL + "/hooks", secretEnv: "HOOK_SECRET")],
        environment: ["HOOK_SECRET": "s3cret"], logger: Logger(label: "e2e.hooks")
      ) { stack in
        let purchase = try await stack.buy()
        #expect(try await stack.submit(purchase.signedTransaction, userId: "alice").status == .verified)
        _ = try await stack.sim.setAutoRenew(purchase.originalTransactionId, enabled: false)
        let clock = ContinuousClock()
        let start = clock.now
        while Set(receiver.recorded.compactMap { $0.jsonBody?["kind"] as? String }).isSuperset(of: [
          "purchased", "opted_out",
        ]) == false,
          clock.now - start < .seconds(10)
        {
          try await Task.sleep(for: .milliseconds(20))
        }
        let deliveries = receiver.recorded
        #expect(deliveries.count >= 3, "one failed attempt and two deliveries")
        // The first attempt failed with 500 and the same event came again.
        #expect(deliveries[0].headers["tollgate-event-id"] == deliveries[1].headers["tollgate-event-id"])
        var kinds: [String] = []
        for delivery in deliveries.dropFirst() {
          let header = try #require(delivery.headers["tollgate-signature"])
          let parts = Dictionary(
            uniqueKeysWithValues: header.split(separator: ",").map {
              let pair = $0.split(separator: "=", maxSplits: 1)
              return (String(pair[0]), String(pair[1]))
            })
          let t = try #require(parts["t"])
          let expected = HMACSHA256.authenticationCode(
            for: Array("\(t).".utf8) + delivery.body, key: Array("s3cret".utf8)
          )
          .map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
          #expect(parts["v1"] == expected)
          #expect(delivery.jsonBody?["userId"] as? String == "alice")
          kinds.append(delivery.jsonBody?["kind"] as? String ?? "")
        }
        #expect(kinds.first == "purchased")
        #expect(kinds.contains("opted_out"))
        let sequence = deliveries.dropFirst().compactMap { ($0.jsonBody?["sequence"] as? NSNumber)?.int64Value }
        #expect(sequence.count == deliveries.count - 1 && sequence == sequence.sorted())
      }
    } catch {
      await receiver.stop()
      throw error
    }
    await receiver.stop()
  }
}

@Suite("Binding by appAccountToken", .serialized)
struct AppAccountTokenEndToEndTests {
  @Test("a purchase nobody submitted is bound to the user its appAccountToken names, when configured")
  func bindsByToken() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-token")
    defer { dir.remove() }
    let configure: (inout WorkerSettings) -> Void = { $0.bindAppAccountToken = true }
    try await LocalStack.run(directory: dir.path, configure: configure, logger: Logger(label: "e2e.token")) { stack in
      let user = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
      _ = try await stack.sim.purchase(
        .init(
          productId: LocalStack.premium, bundleId: LocalStack.bundleId, environment: "Sandbox",
          appAccountToken: user.uppercased()))
      let answer = try await stack.until(user) { $0.active }
      #expect(answer.active, "the SUBSCRIBED notification alone made the user entitled")
    }
  }
}

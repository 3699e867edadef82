import Foundation
import Logging
import Testing
import TollgateCrypto
import TollgateDemo
import TollgateTesting
import TollgateWorker

/// Issue 24 item 12: an event an endpoint keeps refusing is parked after its retry limit and the
/// stream moves on; `tollgate webhooks list-parked` / `redeliver` / `test`; the backlog in
/// `/metrics` and `/health`. A real worker (LocalStack) posts to a real HTTP receiver.
@Suite("Webhook parking", .serialized)
struct WebhookParkingEndToEndTests {
  static let secret = "s3cret"

  @Test("an event the receiver always refuses is parked after maxAttempts, later events go on, redeliver sends it")
  func poisonEventParked() async throws {
    // Alice's events are poison to this receiver: it answers 500 to them, 204 to everything else.
    let receiver = try await WebhookReceiver.start { $0.userId == "alice" ? 500 : 204 }
    let dir = try TemporaryDirectory(prefix: "tollgate-parking")
    defer { dir.remove() }
    let hook = WebhookSettings(url: receiver.url, secretEnv: "HOOK_SECRET", maxAttempts: 3, maxAgeMs: 3_600_000)
    do {
      try await LocalStack.run(
        directory: dir.path, webhooks: [hook], environment: ["HOOK_SECRET": Self.secret],
        logger: Logger(label: "e2e.parking")
      ) { stack in
        let alice = try await stack.buy()
        #expect(try await stack.submit(alice.signedTransaction, userId: "alice").status == .verified)
        let bob = try await stack.buy()
        #expect(try await stack.submit(bob.signedTransaction, userId: "bob").status == .verified)

        // Bob's purchase reaches the receiver although Alice's event before it was never taken.
        let bobDelivered = await eventually(timeout: .seconds(20)) {
          receiver.recorded.contains { $0.userId == "bob" && $0.accepted }
        }
        #expect(bobDelivered != nil, "the stream moved past the refused event")
        let deliveries = receiver.recorded
        let aliceAttempts = deliveries.filter { $0.userId == "alice" }
        let aliceIds = Set(aliceAttempts.compactMap(\.eventId))
        #expect(!aliceIds.isEmpty)
        for id in aliceIds {
          #expect(aliceAttempts.filter { $0.eventId == id }.count == 3, "each refused event is tried maxAttempts times")
        }
        let firstBob = try #require(deliveries.firstIndex { $0.userId == "bob" })
        let lastAlice = try #require(deliveries.lastIndex { $0.userId == "alice" })
        #expect(lastAlice < firstBob, "in order: Bob's event waited until Alice's was parked")

        // Listed as parked, with why.
        let parked = try await listParked(database: stack.databasePath)
        #expect(Set(parked.compactMap { $0["eventId"] as? String }) == aliceIds, "\(parked)")
        for entry in parked {
          #expect(entry["userId"] as? String == "alice")
          #expect(entry["status"] as? String == "parked")
          #expect(entry["attempts"] as? Int == 3)
          #expect(entry["lastError"] as? String == "HTTP 500")
          #expect(entry["endpoint"] as? String == receiver.url)
        }
        #expect(parked.contains { $0["kind"] as? String == "purchased" })

        // The metrics and /health count it.
        let parkedLine = "tollgate_webhook_parked{endpoint=\"\(receiver.url)\"}"
        let counted = await eventually(timeout: .seconds(10)) {
          metric(parkedLine, in: await stack.metricsText()) == Double(aliceIds.count)
        }
        let scraped = await stack.metricsText()
        #expect(counted != nil, "\(scraped)")
        let health = try await webhookHealth(stack, endpoint: receiver.url)
        #expect(health["parked"] as? Int == aliceIds.count, "\(health)")

        // The receiver is fixed; the operator asks for them again and the running worker sends them.
        receiver.answer { _ in 204 }
        let redeliver = try await ChildProcess.runDetached(
          ["webhooks", "redeliver"] + aliceIds.sorted() + ["--database", stack.databasePath])
        #expect(redeliver.status == 0, "\(redeliver.stdout) \(redeliver.stderr)")
        #expect(redeliver.stdout.contains("\(aliceIds.count) parked webhook event(s) queued"), "\(redeliver.stdout)")
        let redelivered = await eventually(timeout: .seconds(20)) {
          aliceIds.allSatisfy { id in receiver.recorded.contains { $0.eventId == id && $0.accepted } }
        }
        #expect(redelivered != nil, "every parked event delivered again")
        for id in aliceIds {
          let attempts = receiver.recorded.filter { $0.eventId == id }
          // The same event: same id, same body, signed.
          #expect(Set(attempts.map(\.body)).count == 1)
          #expect(attempts.allSatisfy { verifies($0, secret: Self.secret) })
        }
        let gone = try await eventually(timeout: .seconds(10)) {
          try await listParked(database: stack.databasePath).isEmpty
        }
        #expect(gone != nil, "a redelivered event is no longer parked")
        let nothing = try await ChildProcess.runDetached(
          ["webhooks", "redeliver", "--all", "--database", stack.databasePath])
        #expect(nothing.status == 1, "nothing parked: nothing queued")
      }
    } catch {
      await receiver.stop()
      throw error
    }
    await receiver.stop()
  }

  @Test("the backlog of an endpoint that refuses everything, and the age of its oldest event, in /metrics and /health")
  func backlogVisible() async throws {
    let receiver = try await WebhookReceiver.start { _ in 503 }
    let dir = try TemporaryDirectory(prefix: "tollgate-backlog")
    defer { dir.remove() }
    let hook = WebhookSettings(url: receiver.url, secretEnv: "HOOK_SECRET", maxAttempts: 1_000)
    do {
      try await LocalStack.run(
        directory: dir.path, webhooks: [hook], environment: ["HOOK_SECRET": Self.secret],
        logger: Logger(label: "e2e.backlog")
      ) { stack in
        for user in ["carol", "dave"] {
          let purchase = try await stack.buy()
          #expect(try await stack.submit(purchase.signedTransaction, userId: user).status == .verified)
        }
        #expect(await eventually(timeout: .seconds(10)) { !receiver.recorded.isEmpty } != nil)
        // An hour passes on the worker's clock with nothing delivered.
        _ = try await stack.sim.advance(byMs: 3_600_000)
        let backlogLine = "tollgate_webhook_backlog{endpoint=\"\(receiver.url)\"}"
        let ageLine = "tollgate_webhook_oldest_undelivered_age_seconds{endpoint=\"\(receiver.url)\"}"
        let seen = await eventually(timeout: .seconds(10)) {
          let text = await stack.metricsText()
          return (metric(backlogLine, in: text) ?? 0) >= 2 && (metric(ageLine, in: text) ?? 0) >= 3_600
        }
        let scraped = await stack.metricsText()
        #expect(seen != nil, "\(scraped)")
        let health = try await webhookHealth(stack, endpoint: receiver.url)
        #expect((health["undelivered"] as? Int ?? 0) >= 2, "\(health)")
        #expect((health["oldestUndeliveredAgeMs"] as? Int ?? 0) >= 3_600_000, "\(health)")
        #expect(health["parked"] as? Int == 0, "\(health)")

        // The receiver takes them: the backlog drains.
        receiver.answer { _ in 204 }
        let drained = await eventually(timeout: .seconds(20)) {
          metric(backlogLine, in: await stack.metricsText()) == 0
        }
        let drainedText = await stack.metricsText()
        #expect(drained != nil, "\(drainedText)")
        let after = try await webhookHealth(stack, endpoint: receiver.url)
        #expect(after["undelivered"] as? Int == 0, "\(after)")
      }
    } catch {
      await receiver.stop()
      throw error
    }
    await receiver.stop()
  }

  @Test("tollgate webhooks test sends a signed test event to a real receiver and prints its status")
  func testEvent() async throws {
    let receiver = try await WebhookReceiver.start()
    let dir = try TemporaryDirectory(prefix: "tollgate-hooktest")
    defer { dir.remove() }
    let config = dir.path + "/tollgate.json"
    let file: [String: Any] = [
      "apps": [["id": "ios", "store": "app_store", "bundleId": "com.example.app"]],
      "entitlements": [["id": "premium"]],
      "products": [["productId": "premium_monthly", "entitlements": ["premium"]]],
      "webhooks": [["url": receiver.url, "secretEnv": "HOOK_TEST_SECRET", "events": ["purchased"]]],
    ]
    try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: config))
    do {
      let sent = try await ChildProcess.runDetached(
        ["webhooks", "test", "--endpoint", receiver.url, "--config", config],
        environment: ["HOOK_TEST_SECRET": Self.secret])
      #expect(sent.status == 0, "\(sent.stdout) \(sent.stderr)")
      #expect(sent.stdout.contains("HTTP 204 accepted"), "\(sent.stdout)")
      let delivery = try #require(receiver.recorded.first)
      #expect(receiver.recorded.count == 1)
      #expect(delivery.kind == "test", "sent whatever the endpoint's events filter says")
      #expect(verifies(delivery, secret: Self.secret), "signed as every delivery is")
      #expect(!verifies(delivery, secret: "another secret"))
      let id = try #require(delivery.eventId)
      #expect(delivery.json?["id"] as? String == id)
      #expect(sent.stdout.contains(id))

      // A receiver that refuses it: the status is printed and the command fails.
      receiver.answer { _ in 401 }
      let refused = try await ChildProcess.runDetached(
        ["webhooks", "test", "--endpoint", receiver.url, "--config", config],
        environment: ["HOOK_TEST_SECRET": Self.secret])
      #expect(refused.status == 1)
      #expect(refused.stdout.contains("HTTP 401 refused"), "\(refused.stdout)")

      // No secret, no test: it could not be signed.
      let unsigned = try await ChildProcess.runDetached(
        ["webhooks", "test", "--endpoint", receiver.url, "--config", config], environment: ["HOOK_TEST_SECRET": nil])
      #expect(unsigned.status != 0)
      #expect(unsigned.stderr.contains("HOOK_TEST_SECRET"), "\(unsigned.stderr)")
      #expect(receiver.recorded.count == 2)
    } catch {
      await receiver.stop()
      throw error
    }
    await receiver.stop()
  }

  @Test("tollgate worker refuses a config whose webhook filter names an unknown event kind")
  func unknownEventKind() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-hookkinds")
    defer { dir.remove() }
    let config = dir.path + "/tollgate.json"
    let file: [String: Any] = [
      "apps": [["id": "ios", "store": "app_store", "bundleId": "com.example.app"]],
      "entitlements": [["id": "premium"]],
      "products": [["productId": "premium_monthly", "entitlements": ["premium"]]],
      "worker": ["database": dir.path + "/tollgate.sqlite"],
      "webhooks": [
        ["url": "http://127.0.0.1:9/hooks", "secretEnv": "HOOK_SECRET", "events": ["purchased", "renewd"]]
      ],
    ]
    try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: config))
    let worker = try await ChildProcess.runDetached(
      ["worker", "--config", config], environment: ["HOOK_SECRET": Self.secret])
    #expect(worker.status != 0)
    #expect(worker.stderr.contains(#"webhooks[0]: events: "renewd" is not an event kind"#), "\(worker.stderr)")
    #expect(!worker.stderr.contains(#""purchased" is not"#))
  }
}

/// `tollgate webhooks list-parked --json` as the operator runs it.
private func listParked(database: String) async throws -> [[String: Any]] {
  let list = try await ChildProcess.runDetached(["webhooks", "list-parked", "--json", "--database", database])
  #expect(list.status == 0, "\(list.stderr)")
  return try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
}

/// The endpoint's entry in the worker's `/health` body.
private func webhookHealth(_ stack: LocalStack, endpoint: String) async throws -> [String: Any] {
  let health = try await httpRequest("GET", port: await stack.workerAdminPort, path: "/health")
  let object = try #require(try JSONSerialization.jsonObject(with: Data(health.body.utf8)) as? [String: Any])
  let webhooks = try #require(object["webhooks"] as? [String: Any], "\(health.body)")
  return try #require(webhooks[endpoint] as? [String: Any], "\(health.body)")
}

/// The value of the sample `series` (name and labels, as Prometheus' text format writes them).
private func metric(_ series: String, in text: String) -> Double? {
  for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
    return Double(line.dropFirst(series.count + 1).trimmingCharacters(in: .whitespaces))
  }
  return nil
}

/// Whether `delivery`'s `Tollgate-Signature` (`t=<ms>,v1=<hex>`) is HMAC-SHA256(secret, "<t>.<body>").
private func verifies(_ delivery: WebhookReceiver.Delivery, secret: String) -> Bool {
  guard let header = delivery.headers["tollgate-signature"] else { return false }
  var parts: [String: String] = [:]
  for part in header.split(separator: ",") {
    let pair = part.split(separator: "=", maxSplits: 1)
    if pair.count == 2 { parts[String(pair[0])] = String(pair[1]) }
  }
  guard let t = parts["t"], let v1 = parts["v1"] else { return false }
  let mac = HMACSHA256.authenticationCode(for: Array("\(t).".utf8) + delivery.body, key: Array(secret.utf8))
  return v1 == mac.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

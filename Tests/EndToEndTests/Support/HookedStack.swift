import Foundation
import Logging
import Testing
import TollgateCore
import TollgateDemo
import TollgateTesting
import TollgateWorker

/// What a webhook endpoint received: the payloads of version 2, each event once (a redelivery
/// carries the same id), in delivery order.
struct WebhookLog {
  let receiver: ScriptedHTTPServer

  /// Every distinct event delivered, in order.
  var payloads: [[String: Any]] {
    var seen: Set<String> = []
    return receiver.recorded.compactMap { delivery -> [String: Any]? in
      guard let body = delivery.jsonBody, let id = body["id"] as? String, seen.insert(id).inserted else { return nil }
      return body
    }
  }

  func payloads(_ userId: String) -> [[String: Any]] { payloads.filter { $0["userId"] as? String == userId } }

  func kinds(_ userId: String) -> [String] { payloads(userId).compactMap { $0["kind"] as? String } }

  /// Waits until `userId`'s deliveries include `kind` (`count` of them), then a little longer, so an
  /// event that should not come has had its chance; returns the user's kinds.
  @discardableResult
  func awaiting(_ kind: String, count: Int = 1, for userId: String, stack: Stack) async throws -> [String] {
    _ = await eventually(timeout: .seconds(20)) { self.kinds(userId).filter { $0 == kind }.count >= count }
    try await stack.settle()
    try await Task.sleep(for: .milliseconds(400))
    return kinds(userId)
  }
}

/// A stack whose worker delivers its events to a receiver that takes them all, with the demo's
/// products ranked in one group in every store (premium over monthly over basic).
func withHookedStack(_ body: (Stack, WebhookLog) async throws -> Void) async throws {
  let receiver = try await ScriptedHTTPServer.start()
  for _ in 0..<1_000 { receiver.enqueue("POST", "/hooks", .init(status: 204)) }
  let dir = try TemporaryDirectory(prefix: "tollgate-story")
  defer { dir.remove() }
  let rankInEveryStore: (inout ProductCatalog) -> Void = { catalog in
    let ranked: [SubscriptionGroup.Member] = [
      .init(productId: LocalStack.premium, level: 1), .init(productId: LocalStack.monthly, level: 2),
      .init(productId: LocalStack.basic, level: 3),
    ]
    catalog.subscriptionGroups += [
      SubscriptionGroup(id: "google-plans", store: .googlePlay, products: ranked),
      SubscriptionGroup(id: "amazon-tiers", store: .amazon, products: ranked),
    ]
  }
  do {
    try await LocalStack.run(
      directory: dir.path, webhooks: [WebhookSettings(url: receiver.baseURL + "/hooks", secretEnv: "HOOK_SECRET")],
      environment: ["HOOK_SECRET": "s3cret"], catalog: rankInEveryStore, logger: Logger(label: "e2e.story")
    ) { local in
      try await body(Stack(dir: dir, local: local), WebhookLog(receiver: receiver))
    }
  } catch {
    await receiver.stop()
    throw error
  }
  await receiver.stop()
}

import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateDemo
import TollgateTesting

/// Issue #14's wrong answers, each reproduced through the real path (simulator over HTTP, worker,
/// SQLite, service, client) and shown right: a transient 404, our credentials refused, a stale
/// answer after a refund, and a store outage longer than the renewal leeway.
@Suite("A bad day end to end", .serialized)
struct BadDayEndToEndTests {
  static let day: Int64 = 86_400_000

  @Test("a 404 right after a purchase is not a no: the buyer is entitled once the store knows the purchase")
  func transientNotFound() async throws {
    try await withStack { stack in try await Self.transientNotFound(stack) }
  }

  static func transientNotFound(_ stack: Stack) async throws {
    try stack.sim.addFault(FaultRule(target: "apple.api", mode: .notFound, count: nil))
    let purchase = try await stack.local.buy()
    let first = try await stack.submit(purchase.transactionId, userId: "alice")
    #expect(first.status == .pending, "\(first.rejectionReason)")
    let stillWaiting = try await stack.answer("alice")
    #expect(!stillWaiting.active)
    stack.sim.clearFaults()
    let entitled = try await stack.until("alice") { $0.active }
    #expect(entitled.active)
  }

  @Test("a purchase 2 s in the worker's future (the store's clock is ahead) is entitled at once, not 'not started'")
  func clockSkew() async throws {
    try await withStack(clockBehindStoreMs: 2_000) { stack in try await Self.clockSkew(stack) }
  }

  static func clockSkew(_ stack: Stack) async throws {
    let (_, response) = try await stack.buyAndSubmit(userId: "frank")
    #expect(response.status == .verified, "\(response.rejectionReason)")
    let answer = try await stack.answer("frank")
    #expect(answer.active, "a fresh buyer was locked out by a 2 s clock skew")
    #expect(answer.state == .active)
  }

  @Test("the store refusing our API token (401) keeps the buyer pending, never rejected; verified once fixed")
  func unauthorizedKeepsPending() async throws {
    try await withStack { stack in try await Self.unauthorizedKeepsPending(stack) }
  }

  static func unauthorizedKeepsPending(_ stack: Stack) async throws {
    try stack.sim.addFault(FaultRule(target: "apple.api", mode: .unauthorized, count: nil))
    let purchase = try await stack.local.buy()
    let first = try await stack.submit(purchase.signedTransaction, userId: "bob")
    #expect(first.status == .pending, "\(first.rejectionReason)")
    #expect(first.rejectionReason.isEmpty)
    stack.sim.clearFaults()
    let entitled = try await stack.until("bob") { $0.active }
    #expect(entitled.active)
    let events = try await stack.events("bob")
    #expect(events == ["purchased"], "\(events)")
  }

  @Test(
    "a stale answer from before a refund (a caching proxy) does not re-entitle; the refund's own signed payload ends access"
  )
  func staleAnswerAfterRefund() async throws {
    try await withStack { stack in try await Self.staleAnswerAfterRefund(stack) }
  }

  static func staleAnswerAfterRefund(_ stack: Stack) async throws {
    let (purchase, verified) = try await stack.buyAndSubmit(userId: "carol")
    #expect(verified.status == .verified)
    try await stack.settle()
    // From now on the API answers what it answered before the refund.
    try stack.sim.addFault(FaultRule(target: "apple.api", mode: .stale, count: nil))
    _ = try await stack.sim.advance(byMs: 60_000)  // the refund comes a minute later, signed then
    _ = try await stack.sim.refund(purchase.originalTransactionId)
    let refunded = try await stack.until("carol") { !$0.active }
    #expect(!refunded.active)
    // The worker keeps asking; the stale answers are never applied.
    try await Task.sleep(for: .milliseconds(800))
    #expect(!(try await stack.answer("carol").active))
    stack.sim.clearFaults()
    try await stack.settle()
    #expect(!(try await stack.answer("carol").active))
    let events = try await stack.events("carol")
    let refundAt = try #require(events.firstIndex(of: "refunded"), "\(events)")
    #expect(
      events[(refundAt + 1)...].allSatisfy { !["purchased", "opted_in", "renewed"].contains($0) }, "\(events)")
  }

  @Test("a five-day store outage keeps renewing subscribers in; the one the store reports expired ends when it answers")
  func longOutage() async throws {
    try await withStack { stack in try await Self.longOutage(stack) }
  }

  static func longOutage(_ stack: Stack) async throws {
    let (dana, _) = try await stack.buyAndSubmit(userId: "dana")
    let (erin, _) = try await stack.buyAndSubmit(userId: "erin")
    try await stack.settle()
    // The store goes dark for the worker: no notifications, every API call fails.
    try stack.sim.addFault(FaultRule(target: "apple.notifications", mode: .drop, count: nil))
    try stack.sim.addFault(FaultRule(target: "apple.api", mode: .error500, count: nil))
    // At the store, erin turns auto-renew off; the worker cannot hear it.
    _ = try await stack.sim.setAutoRenew(erin.originalTransactionId, enabled: false)
    // Thirty days and then five more, a few hours at a time, the worker's checks failing.
    for _ in 0..<(35 * 4) {
      _ = try await stack.sim.advance(byMs: 6 * 3_600_000)
      try await Task.sleep(for: .milliseconds(15))
    }
    try await Task.sleep(for: .milliseconds(300))
    let danaDuring = try await stack.answer("dana")
    let erinDuring = try await stack.answer("erin")
    #expect(danaDuring.active, "a renewing subscriber was cut off because the store is down")
    #expect(erinDuring.active, "the worker cannot know yet that erin stopped renewing")
    let subscription = try await stack.worker.storage.subscription(
      store: .appStore, purchaseId: dana.originalTransactionId)
    #expect(subscription?.reason == "store_unreachable")
    // GetSubscription says why.
    let summary = try await stack.client.getSubscription(userId: "dana")
    #expect(summary.subscriptions.first?.reason == "store_unreachable", "\(summary)")
    // The service's Health says how many records the policy keeps in.
    let serviceHealth = try await stack.client.health()
    #expect(serviceHealth.status == .serving)
    #expect(serviceHealth.reason.contains("store-outage policy"), "\(serviceHealth.reason)")
    // The worker says so on /health.
    let port = await stack.worker.adminListeningPort()
    let health = try await httpRequest("GET", port: port, path: "/health")
    #expect(health.body.contains(#""status":"degraded""#), "\(health.body)")
    #expect(health.body.contains("store_unreachable: app_store since"), "\(health.body)")

    // The store answers again.
    stack.sim.clearFaults()
    _ = try await stack.sim.advance(byMs: 60_000)
    let extendedUntil = danaDuring.expiresAtMs
    let danaAfter = try await stack.until("dana") { $0.expiresAtMs > extendedUntil }
    #expect(danaAfter.active)
    let erinAfter = try await stack.until("erin") { !$0.active }
    #expect(!erinAfter.active)
    let recovered = try await httpRequest("GET", port: port, path: "/health")
    #expect(recovered.body.contains(#""status":"serving""#), "\(recovered.body)")
  }
}

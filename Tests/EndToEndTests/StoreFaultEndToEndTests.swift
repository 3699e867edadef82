import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateDemo
import TollgateTesting

/// The worker against an App Store Server API that misbehaves in each transient way the
/// simulator knows (docs/storesim.md, "Faults"): a subscriber verified before the fault keeps
/// exactly the state they had while the store cannot be read, the worker keeps asking, and once
/// the fault clears the renewal that happened at the store meanwhile shows up.
@Suite("Store faults end to end", .serialized)
struct StoreFaultEndToEndTests {
  static let day: Int64 = 86_400_000
  /// Past the first period's end (a renewal at the store, DID_RENEW, a scheduled check), well
  /// within the worker's leeway.
  static let pastRenewal: Int64 = 30 * day + 3_600_000
  /// Events that would mean the fault was taken for the store's word.
  static let endings: Set<String> = ["expired", "revoked", "refunded", "billing_issue", "transferred"]

  /// The transient faults whose answer comes at once (stall has its own test: it lasts until
  /// the worker's deadline).
  static let immediate: [FaultRule] = [
    FaultRule(target: "apple.api", mode: .error500, count: nil),
    FaultRule(target: "apple.api", mode: .rateLimit, count: nil, retryAfterSeconds: 1),
    FaultRule(target: "apple.api", mode: .reset, count: nil),
    FaultRule(target: "apple.api", mode: .html200, count: nil),
    FaultRule(target: "apple.api", mode: .empty200, count: nil),
    FaultRule(target: "apple.api", mode: .truncatedJSON, count: nil),
    FaultRule(target: "apple.api", mode: .badSignature, count: nil),
  ]

  @Test(
    "a scheduled re-verification through the fault: state unchanged, retried, caught up after", arguments: immediate)
  func scheduledCheckThroughFault(_ fault: FaultRule) async throws {
    try await withStack { stack in
      let before = try await verifiedSubscriber("bob", on: stack)
      // No notification arrives: only the worker's own schedule reads the store.
      try stack.sim.addFault(FaultRule(target: "apple.notifications", mode: .drop, count: nil))
      try stack.sim.addFault(fault)
      _ = try await stack.sim.advance(byMs: Self.pastRenewal)
      let hits = await eventually(timeout: .seconds(8)) { apiHits(stack) >= 3 }
      #expect(hits != nil, "the scheduled check was not retried: \(stack.sim.appliedFaults)")
      // Past the expiry with the store out: the outage policy keeps the renewing subscriber in
      // (access may reach further than before, never less), and nothing from the faulty answers
      // was applied.
      try await expectNeverLess("bob", than: before, on: stack)
      #expect(try await stack.answer("bob").verifiedAtMs == before.verifiedAtMs)
      if fault.mode == .rateLimit { expectRetryAfterHonoured(stack.sim.appliedFaults, seconds: 1) }

      stack.sim.clearFaults()
      let verifiedBefore = before.verifiedAtMs
      let after = try await stack.until("bob") { $0.verifiedAtMs > verifiedBefore }
      try await expectCaughtUp("bob", after: before, answer: after, on: stack)
    }
  }

  @Test(
    "a notification's fetch through the fault: never less than before, retried, confirmed after", arguments: immediate)
  func notificationFetchThroughFault(_ fault: FaultRule) async throws {
    try await withStack { stack in
      let before = try await verifiedSubscriber("alice", on: stack)
      try stack.sim.addFault(fault)
      _ = try await stack.sim.advance(byMs: Self.pastRenewal)  // DID_RENEW: the worker reads the chain
      let hits = await eventually(timeout: .seconds(8)) { apiHits(stack) >= 3 }
      #expect(hits != nil, "the worker did not come back during the fault: \(stack.sim.appliedFaults)")
      try await expectNeverLess("alice", than: before, on: stack)
      let counts = try await stack.worker.storage.inboxCounts()
      #expect((counts["pending"] ?? 0) + (counts["processing"] ?? 0) > 0, "the notification is kept for a retry")

      stack.sim.clearFaults()
      try await stack.settle()  // the notification's item, done once the store answered
      try await expectCaughtUp("alice", after: before, answer: try await stack.answer("alice"), on: stack)
    }
  }

  @Test("stall: each call waits out the worker's deadline; access stands and catches up after")
  func stall() async throws {
    try await withStack { stack in
      let before = try await verifiedSubscriber("carol", on: stack)
      try stack.sim.addFault(FaultRule(target: "apple.api", mode: .stall, count: nil))
      _ = try await stack.sim.advance(byMs: Self.pastRenewal)
      let held = await eventually(timeout: .seconds(5)) { apiHits(stack) >= 1 }
      #expect(held != nil, "no call reached the stalled store")
      try await Task.sleep(for: .seconds(1))
      try await expectNeverLess("carol", than: before, on: stack)

      // The stalled calls end at the worker's own deadline (10 s); the retries are answered.
      stack.sim.clearFaults()
      try await stack.settle(timeout: .seconds(30))
      let after = try await stack.until("carol", timeout: .seconds(30)) { $0.verifiedAtMs > before.verifiedAtMs }
      try await expectCaughtUp("carol", after: before, answer: after, on: stack)
    }
  }

  // MARK: Steps

  /// Buys premium for `userId`, submits it and waits until everything about it is applied.
  private func verifiedSubscriber(_ userId: String, on stack: Stack) async throws -> Tollgate_V1_IsSubscriberResponse {
    let (_, response) = try await stack.buyAndSubmit(userId: userId)
    #expect(response.status == .verified, "\(response.rejectionReason) \(response.error.message)")
    try await stack.settle()  // the purchase's own SUBSCRIBED notification
    let answer = try await stack.answer(userId)
    #expect(answer.active)
    return answer
  }

  /// The subscriber is still entitled and nothing was taken away; a verified notification may
  /// have moved the expiry forward, never back.
  private func expectNeverLess(_ userId: String, than before: Tollgate_V1_IsSubscriberResponse, on stack: Stack)
    async throws
  {
    let during = try await stack.answer(userId)
    #expect(during.active, "access must not be cut because the store misbehaves")
    #expect(during.expiresAtMs >= before.expiresAtMs)
    let events = try await stack.events(userId)
    #expect(Self.endings.isDisjoint(with: events), "\(events)")
  }

  /// The renewal that happened at the store during the fault shows up.
  private func expectCaughtUp(
    _ userId: String, after before: Tollgate_V1_IsSubscriberResponse, answer after: Tollgate_V1_IsSubscriberResponse,
    on stack: Stack
  ) async throws {
    #expect(after.active)
    #expect(after.expiresAtMs >= before.expiresAtMs + 29 * Self.day, "the store's renewal")
    #expect(after.verifiedAtMs > before.verifiedAtMs)
    let events = try await stack.events(userId, awaiting: "renewed")
    #expect(events.filter { $0 == "renewed" }.count == 1, "\(events)")
    #expect(Self.endings.isDisjoint(with: events), "\(events)")
  }

  /// How many App Store Server API requests a fault answered.
  private func apiHits(_ stack: Stack) -> Int {
    stack.sim.appliedFaults.filter { $0.target == "apple.api" }.count
  }

  /// The worker waited at least `Retry-After` before each retry (one item asks: the scheduled check).
  private func expectRetryAfterHonoured(_ applied: [AppliedFault], seconds: Int) {
    let times = applied.filter { $0.mode == .rateLimit }.map(\.realTimeMs).sorted()
    let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
    #expect(!gaps.isEmpty)
    #expect(gaps.allSatisfy { $0 >= Int64(seconds) * 1_000 - 10 }, "asked again before Retry-After: \(gaps) ms")
  }
}

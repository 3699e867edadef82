import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateDemo
import TollgateTesting
import TollgateWorker

/// Issue 24's fault matrix: for every store and every way the simulator can make its API
/// misbehave (docs/storesim.md, "Faults"), a payer verified before the fault, whose renewal
/// happens at the store while the worker cannot hear of it (notifications dropped), is never cut
/// off and told nothing that did not happen, for days past the renewal leeway (the outage
/// policy); and once the fault clears, the renewal shows within seconds of real time.
@Suite("Store fault matrix end to end", .serialized)
struct StoreFaultMatrixEndToEndTests {
  static let day: Int64 = 86_400_000
  /// Events that would mean a fault was taken for the store's word.
  static let endings: Set<String> = ["expired", "revoked", "refunded", "billing_issue", "transferred"]

  /// One row: a store, and a fault of its API.
  struct Case: CustomTestStringConvertible, Sendable {
    var store: Store
    var mode: FaultRule.Mode
    var testDescription: String { "\(store.rawValue) \(mode.rawValue)" }

    var target: String {
      switch store {
      case .googlePlay: "google.api"
      case .amazon: "amazon.rvs"
      case .appStore, .promotional: "apple.api"
      }
    }

    var notifications: String {
      switch store {
      case .googlePlay: "google.notifications"
      case .amazon: "amazon.notifications"
      case .appStore, .promotional: "apple.notifications"
      }
    }

    var rule: FaultRule {
      switch mode {
      case .rateLimit: FaultRule(target: target, mode: mode, count: nil, retryAfterSeconds: 1)
      // A hang the simulator ends after 2 s of real time (the worker's own deadline is 10 s).
      case .stall: FaultRule(target: target, mode: mode, count: nil, delayMs: 2_000)
      default: FaultRule(target: target, mode: mode, count: nil)
      }
    }
  }

  /// Every answer fault `store`'s API takes, but `slow` (a real answer, late).
  static func cases(_ store: Store) -> [Case] {
    FaultRule.modes(for: Case(store: store, mode: .error500).target).filter { $0 != .slow }.map {
      Case(store: store, mode: $0)
    }
  }

  @Test(
    "App Store: a payer through days of the fault, never cut; caught up within seconds after",
    arguments: cases(.appStore))
  func apple(_ row: Case) async throws {
    try await withStack { stack in try await Self.payerThroughFault(row, on: stack) }
  }

  @Test(
    "Google Play: a payer through days of the fault, never cut; caught up within seconds after",
    arguments: cases(.googlePlay))
  func google(_ row: Case) async throws {
    try await withStack { stack in try await Self.payerThroughFault(row, on: stack) }
  }

  @Test(
    "Amazon: a payer through days of the fault, never cut; caught up within seconds after",
    arguments: cases(.amazon))
  func amazon(_ row: Case) async throws {
    try await withStack { stack in try await Self.payerThroughFault(row, on: stack) }
  }

  static func payerThroughFault(_ row: Case, on stack: Stack) async throws {
    let purchaseId = try await payer(row.store, on: stack)
    let before = try await stack.answer("payer")
    #expect(before.active)
    let verified = try #require(try await stack.worker.storage.subscription(store: row.store, purchaseId: purchaseId))
    try stack.sim.addFault(FaultRule(target: row.notifications, mode: .drop, count: nil))
    try stack.sim.addFault(row.rule)
    // Past the first period's end, a few hours at a time: the renewal happens at the store, and
    // the worker's check after the expiry meets the fault. The worker has as long as the renewal
    // leeway (a day) to learn that; here, until its check has run its course.
    for _ in 0..<(30 * 4 + 1) {
      _ = try await stack.sim.advance(byMs: 6 * 3_600_000)
      try await Task.sleep(for: .milliseconds(5))
    }
    _ = try await eventually(timeout: .seconds(10)) {
      guard let now = try await stack.worker.storage.subscription(store: row.store, purchaseId: purchaseId) else {
        return false
      }
      return now.failures > 0 || now.verifiedAtMs > verified.verifiedAtMs
    }
    // Three days on (the renewal leeway is one): the outage policy keeps the payer in.
    for _ in 0..<(3 * 4) {
      _ = try await stack.sim.advance(byMs: 6 * 3_600_000)
      try await Task.sleep(for: .milliseconds(20))
    }
    try await Task.sleep(for: .milliseconds(300))
    let during = try await stack.answer("payer")
    #expect(during.active, "a payer was cut because the API answered \(row.mode.rawValue)")
    #expect(during.expiresAtMs >= before.expiresAtMs)
    let events = try await stack.events("payer")
    #expect(endings.isDisjoint(with: events), "\(events)")
    // The worker does not say it is serving while it cannot believe the store.
    let health = try await httpRequest("GET", port: await stack.worker.adminListeningPort(), path: "/health")
    #expect(health.body.contains(#""status":"degraded""#), "\(health.body)")

    // Within seconds of real time once the store answers again (its postponed work is due at
    // once), the renewal that happened at the store shows.
    stack.sim.clearFaults()
    let renewedFrom = before.expiresAtMs + 29 * day
    let after = try await stack.until("payer", timeout: .seconds(15)) { $0.active && $0.expiresAtMs >= renewedFrom }
    #expect(after.active && after.expiresAtMs >= renewedFrom, "the store's renewal")
    let final = try await stack.events("payer")
    #expect(endings.isDisjoint(with: final), "\(final)")
  }

  /// Buys the store's monthly premium subscription for "payer" and waits until it is applied.
  @discardableResult
  static func payer(_ store: Store, on stack: Stack) async throws -> String {
    switch store {
    case .googlePlay:
      let (purchase, response) = try await stack.googleBuyAndSubmit(userId: "payer")
      #expect(response.status == .verified, "\(response.rejectionReason)")
      try await stack.settle()
      return purchase.purchaseToken
    case .amazon:
      _ = try await eventually { try stack.sim.amazonNotificationEndpoint() == "confirmed" }
      let purchase = try await stack.local.amazonBuy()
      let response = try await stack.local.amazonSubmit(
        receiptId: purchase.receiptId, amazonUserId: purchase.userId, userId: "payer")
      #expect(response.status == .verified, "\(response.rejectionReason)")
      try await stack.settle()
      return purchase.receiptId
    case .appStore, .promotional:
      let (purchase, response) = try await stack.buyAndSubmit(userId: "payer")
      #expect(response.status == .verified, "\(response.rejectionReason)")
      try await stack.settle()
      return purchase.originalTransactionId
    }
  }
}

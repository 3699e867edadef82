import Foundation
import StoreSimulator
import Testing
import TollgateCore
import TollgateStorage
import TollgateTesting

/// One subscription the test bought at a simulated store and submitted for a user of its own.
struct BoughtChain: Sendable, Hashable {
  var user: String
  var store: Store
  /// The App Store's original transaction id, or Google Play's purchase token.
  var purchaseId: String

  /// Whether `request` is the read of this chain that every verification makes once: Get All
  /// Subscription Statuses (App Store) or `purchases.subscriptionsv2.get` (Google Play).
  func isRead(_ request: StoreRequestRecord) -> Bool {
    switch store {
    case .appStore: request.target == "apple.api" && request.request == "/sandbox/inApps/v1/subscriptions/\(purchaseId)"
    default: request.target == "google.api" && request.request.hasSuffix("/subscriptionsv2/tokens/\(purchaseId)")
    }
  }

  /// Whether `request` asks the store about this chain at all (the first call of a read).
  func isAsked(_ request: StoreRequestRecord) -> Bool {
    let path = request.request.split(separator: "?").first ?? ""
    return path.split(separator: "/").last.map(String.init) == purchaseId
  }

  /// Refunds it at the store, which notifies the worker that receives notifications.
  func refund(at sim: StoreSimulator) async throws {
    switch store {
    case .appStore: try await sim.refund(purchaseId)
    default: try await sim.googleRefund(purchaseId)
    }
  }
}

extension SharedDatabaseWorkers {
  /// Buys `count` monthly subscriptions, the App Store and Google Play in turn, submits each for a
  /// user of its own (`user-0`, …) and waits until every one is verified.
  func buyAndSubmit(_ count: Int) async throws -> [BoughtChain] {
    let (worker, entitlements) = try storage()
    var chains: [BoughtChain] = []
    for index in 0..<count {
      let user = "user-\(index)"
      if index % 2 == 0 {
        let purchase = try await sim.purchase(
          .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
        chains.append(BoughtChain(user: user, store: .appStore, purchaseId: purchase.originalTransactionId))
        _ = try await entitlements.submitPurchase(
          PurchaseSubmission(userId: user, store: .appStore, receipt: purchase.signedTransaction),
          nowMs: sim.followedNowMs)
      } else {
        let purchase = try await sim.googlePurchase(.init(productId: Stack.premium, acknowledged: true))
        chains.append(BoughtChain(user: user, store: .googlePlay, purchaseId: purchase.purchaseToken))
        _ = try await entitlements.submitPurchase(
          PurchaseSubmission(
            userId: user, store: .googlePlay, purchaseToken: purchase.purchaseToken, productId: Stack.premium),
          nowMs: sim.followedNowMs)
      }
    }
    // The stores' own notifications of the purchases are in the inbox too.
    var waiting: [String] = []
    let verified = try await eventually(timeout: .seconds(30)) {
      waiting = []
      for chain in chains {
        let stored = try await worker.subscription(store: chain.store, purchaseId: chain.purchaseId)
        if stored?.userId != chain.user { waiting.append(chain.user) }
      }
      let counts = try await worker.inboxCounts()
      if counts["pending", default: 0] + counts["processing", default: 0] > 0 { waiting.append("inbox \(counts)") }
      return waiting.isEmpty
    }
    try #require(verified != nil, "the submissions were not all verified: \(waiting)")
    return chains
  }

  /// Waits until every chain was verified at or after the virtual `checkedAfterMs` and has no
  /// check due, the inbox holds nothing pending or in flight, and every notification the
  /// simulator sent was delivered.
  func settle(_ chains: [BoughtChain], checkedAfterMs: Int64, timeout: Duration = .seconds(30)) async throws {
    let (worker, _) = try storage()
    var waiting: [String] = []
    let settled = try await eventually(timeout: timeout) {
      waiting = []
      for chain in chains {
        let stored = try await worker.subscription(store: chain.store, purchaseId: chain.purchaseId)
        guard let stored, stored.verifiedAtMs >= checkedAfterMs, (stored.nextCheckAtMs ?? .max) > checkedAfterMs
        else {
          waiting.append(chain.user)
          continue
        }
      }
      let counts = try await worker.inboxCounts()
      if counts["pending", default: 0] + counts["processing", default: 0] > 0 { waiting.append("inbox \(counts)") }
      if sim.notifications.contains(where: { $0.state == "pending" }) { waiting.append("notifications") }
      return waiting.isEmpty
    }
    try #require(settled != nil, "not settled: \(waiting)")
  }

  /// The users of `chains` that `premium` is active for now, as the service answers.
  func entitled(_ chains: [BoughtChain]) async throws -> Set<String> {
    let (_, entitlements) = try storage()
    let now = sim.followedNowMs
    let records = try await entitlements.entitlements(forUsers: chains.map(\.user))
    return Set(
      records.filter { _, records in
        records.contains {
          $0.entitlement == "premium" && $0.state.atQueryTime(accessEndsAtMs: $0.accessEndsAtMs, nowMs: now).active
        }
      }.keys)
  }
}

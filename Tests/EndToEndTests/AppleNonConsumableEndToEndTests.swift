import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateDemo
import TollgateServer
import TollgateTesting

/// Issue 15: an Apple non-consumable mapped to entitlements grants them for life, until it is
/// refunded; through the simulator, the worker and the service.
@Suite("Apple non-consumable end to end", .serialized)
struct AppleNonConsumableEndToEndTests {
  static let day: Int64 = 86_400_000
  static let lifetime = LocalStack.lifetime

  @Test("bought and submitted, it grants for life; a refund revokes it")
  func lifetimeThenRefund() async throws {
    try await withStack(Self.lifetimeThenRefund)
  }

  static func lifetimeThenRefund(_ stack: Stack) async throws {
    let (purchase, response) = try await stack.buyAndSubmit(lifetime, userId: "l")
    #expect(response.status == .verified, "\(response.rejectionReason) \(response.error.message)")
    #expect(response.entitlements.map(\.entitlement) == ["basic", "premium"])
    #expect(response.entitlements.allSatisfy { $0.active && $0.expiresAtMs == Int64.max })
    let answer = try await stack.answer("l")
    #expect(answer.active)
    #expect(answer.state == .active)
    #expect(answer.store == .appStore)
    #expect(answer.storeSubscriptionID == purchase.originalTransactionId)
    #expect(answer.expiresAtMs == Int64.max)
    #expect(!answer.willRenew)
    #expect(try await stack.answer("l", "basic").active)

    // The worker keeps it on the slow sweep: no expiry to look at.
    let stored = try #require(
      try await stack.worker.storage.subscription(store: .appStore, purchaseId: purchase.originalTransactionId))
    let sweep = stack.local.configuration.worker.sweepIntervalMs
    #expect(stored.state == .active)
    #expect(stored.nextCheckAtMs.map { $0 - stored.verifiedAtMs } == sweep)

    // 400 days on, still entitled; the scheduled check reads the transaction once and leaves
    // the chain on the slow sweep again.
    try stack.sim.addFault(FaultRule(target: "apple.api", mode: .slow, count: nil, delayMs: 0))  // counts calls
    _ = try await stack.sim.advance(byMs: 400 * day)
    let checked = try await eventually(timeout: .seconds(10)) {
      let held = try await stack.worker.storage.subscription(
        store: .appStore, purchaseId: purchase.originalTransactionId)
      return (held?.verifiedAtMs ?? 0) > stored.verifiedAtMs
    }
    #expect(checked != nil, "the scheduled check did not run after the jump")
    try await Task.sleep(for: .milliseconds(500))
    let calls = stack.sim.appliedFaults.filter { $0.target == "apple.api" }.map(\.request)
    #expect(calls.count == 1, "\(calls)")
    #expect(calls.allSatisfy { $0.contains("/inApps/v1/transactions/") }, "\(calls)")
    stack.sim.clearFaults()
    let later = try #require(
      try await stack.worker.storage.subscription(store: .appStore, purchaseId: purchase.originalTransactionId))
    #expect(later.nextCheckAtMs.map { $0 - later.verifiedAtMs } == sweep)
    let stillEntitled = try await stack.answer("l")
    #expect(stillEntitled.active)
    #expect(stillEntitled.expiresAtMs == Int64.max)

    // A refund: REFUND notification, the worker reads the revocation, access ends.
    _ = try await stack.sim.refund(purchase.originalTransactionId)
    let revoked = try await stack.until("l") { !$0.active }
    #expect(!revoked.active)
    #expect(revoked.state == .revoked)
    #expect(!(try await stack.answer("l", "basic").active))
    #expect(
      stack.sim.notifications.filter { $0.store == "apple" }.map(\.notificationType) == ["ONE_TIME_CHARGE", "REFUND"])
  }

  @Test("a bare transaction id is accepted; a second user (signed transaction or receipt data) is refused under keep")
  func transactionIdAndTransferKeep() async throws {
    try await withStack(transferPolicy: .keepWithOriginalOwner, Self.transactionIdAndTransferKeep)
  }

  static func transactionIdAndTransferKeep(_ stack: Stack) async throws {
    let purchase = try await stack.sim.purchase(
      .init(productId: lifetime, bundleId: Stack.bundleId, environment: "Sandbox"))
    let first = try await stack.submit(purchase.transactionId, userId: "owner")
    #expect(first.status == .verified, "\(first.rejectionReason) \(first.error.message)")
    #expect(try await stack.answer("owner").expiresAtMs == Int64.max)
    let second = try await stack.submit(purchase.signedTransaction, userId: "intruder")
    #expect(second.status == .rejected)
    #expect(second.rejectionReason.contains("bound to another user"))
    #expect(try await stack.answer("owner").active)
    #expect(!(try await stack.answer("intruder").active))
    #expect(try await stack.events("owner").contains("transfer_refused"))
    // The legacy receipt data (through verifyReceipt) names the same purchase.
    let third = try await stack.submit(purchase.receiptData, userId: "third")
    #expect(third.status == .rejected)
    #expect(third.rejectionReason.contains("bound to another user"), "\(third.rejectionReason)")
  }

  @Test("transfer policy newest: the non-consumable moves to the second user")
  func transferNewest() async throws {
    try await withStack(transferPolicy: .transferToNewest, Self.transferNewest)
  }

  static func transferNewest(_ stack: Stack) async throws {
    let (purchase, first) = try await stack.buyAndSubmit(lifetime, userId: "old")
    #expect(first.status == .verified)
    // A bare transaction id moves nothing (issue 17); the signed transaction, fresh, does.
    let bare = try await stack.submit(purchase.transactionId, userId: "new")
    #expect(bare.status == .rejected, "\(bare.rejectionReason)")
    let moved = try await stack.submit(purchase.signedTransaction, userId: "new")
    #expect(moved.status == .verified, "\(moved.rejectionReason)")
    #expect(try await stack.answer("new").active)
    #expect(!(try await stack.until("old") { !$0.active }.active))
    #expect(try await stack.events("new").contains("transferred"))
  }
}

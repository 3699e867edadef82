import Testing
import TollgateCore

@testable import TollgateWorker

/// Issue 24, item 11: a claim's events (transfer_refused, transferred) carry the chain's version-2
/// details like every other event.
@Suite("Claim events carry the chain's details")
struct ClaimEventDetailsTests {
  @Test("transfer_refused names the environment, transaction, period and expiry of the purchase")
  func transferRefused() async throws {
    let parts = WorkerParts(transferPolicy: .keepWithOriginalOwner)
    let chain = parts.boughtNow("otx-1")
    try await parts.reconciler.apply(chain, observedAtMs: parts.now, claimant: "alice", completes: nil, reason: "t")
    try await parts.reconciler.apply(chain, observedAtMs: parts.now, claimant: "bob", completes: nil, reason: "t")
    let refused = try #require(await parts.storage.events(userId: "alice").first { $0.kind == "transfer_refused" })
    #expect(refused.details.environment == chain.history.environment)
    #expect(refused.details.transactionId == chain.history.transactions.first?.transactionId)
    #expect(refused.details.periodType == .normal)
    #expect(refused.details.expiresAtMs == chain.history.transactions.first?.expiresDateMs)
  }
}

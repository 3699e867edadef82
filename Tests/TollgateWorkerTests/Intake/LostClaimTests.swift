import Testing
import TollgateCore

@testable import TollgateWorker

/// Issue 26: an inbox item whose claim was lost while a worker was busy with it (its lease ran
/// out and another claim took it) is dropped by that worker: nothing it writes lands, it is
/// never retried nor counted, and the holder of the newer claim finishes it.
@Suite("Lost inbox claims")
struct LostClaimTests {
  let leaseMs: Int64 = 1_000

  func submission(_ receipt: String, user: String = "alice") -> PurchaseSubmission {
    PurchaseSubmission(userId: user, store: .appStore, receipt: receipt, appId: FakeStoreGateway.appId)
  }

  /// Claims the only due item as a stalled worker would, lets its lease run out, and claims it
  /// again as another worker: the stale claim and the current one.
  func lostClaim(_ parts: WorkerParts) async throws -> (stale: InboxItem, current: InboxItem) {
    let stale = try #require(
      await parts.storage.claimInbox(nowMs: parts.now, limit: 1, leaseMs: leaseMs, excluding: []).first)
    parts.clock.advance(byMs: leaseMs)
    let current = try #require(
      await parts.storage.claimInbox(nowMs: parts.now, limit: 1, leaseMs: leaseMs, excluding: []).first)
    #expect(current.id == stale.id && current.claimToken != stale.claimToken)
    return (stale, current)
  }

  @Test("a verification under a lost claim writes nothing; the new holder's verification completes the item")
  func lostClaimVerification() async throws {
    let parts = WorkerParts()
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1")))
    let id = try await parts.storage.enqueue(submission("otx-1"), nowMs: parts.now)
    let (stale, current) = try await lostClaim(parts)

    await parts.processor.process(stale)
    #expect(await parts.storage.allSubscriptions().isEmpty, "the stale worker's verification was written")
    #expect(await parts.storage.entitlements(userId: "alice").isEmpty)
    #expect(await parts.storage.events(userId: "alice").isEmpty)
    let held = try #require(await parts.storage.item(id))
    #expect(held.status == .processing)
    #expect(held.item.claimToken == current.claimToken, "the item stays the new holder's")
    #expect(parts.stats.snapshot.verified == 0)
    #expect(parts.stats.snapshot.storeFailures == 0)

    await parts.processor.process(current)
    #expect(await parts.storage.item(id)?.status == .verified)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "alice")
    #expect(await parts.storage.events(userId: "alice").map(\.kind) == ["purchased"])
    #expect(parts.stats.snapshot.verified == 1)
  }

  @Test("store trouble under a lost claim is not retried: the item stays the new holder's, not put back")
  func lostClaimNotRetried() async throws {
    let parts = WorkerParts()
    parts.gateway.answer(
      "otx-1", .failure(StoreFailure(.transient, "HTTP 503", retryAfterMs: 5_000)), .success(parts.boughtNow("otx-1")))
    let id = try await parts.storage.enqueue(submission("otx-1"), nowMs: parts.now)
    let (stale, current) = try await lostClaim(parts)
    let before = try #require(await parts.storage.item(id))

    await parts.processor.process(stale)
    let held = try #require(await parts.storage.item(id))
    #expect(held.status == .processing, "the stale worker put the item back for a retry")
    #expect(held.lastError == nil)
    #expect(held.nextAttemptAtMs == before.nextAttemptAtMs)
    #expect(held.item.claimToken == current.claimToken)

    await parts.processor.process(current)
    #expect(await parts.storage.item(id)?.status == .verified)
  }

  @Test("a final answer under a lost claim neither rejects the item nor counts a rejection")
  func lostClaimNotRejected() async throws {
    let parts = WorkerParts()
    parts.gateway.answer("otx-1", .failure(.final("transaction otx-1 is unknown to the store")))
    let id = try await parts.storage.enqueue(submission("otx-1"), nowMs: parts.now)
    let (stale, current) = try await lostClaim(parts)

    await parts.processor.process(stale)
    #expect(await parts.storage.item(id)?.status == .processing)
    #expect(parts.stats.snapshot.rejected == 0)

    await parts.processor.process(current)
    #expect(await parts.storage.item(id)?.status == .rejected)
    #expect(parts.stats.snapshot.rejected == 1)
  }

  @Test("an informational notification under a lost claim is left to the new holder")
  func lostClaimInformational() async throws {
    let parts = WorkerParts()
    let (id, _) = try await parts.storage.storeNotification(
      route: FakeStoreGateway.route, dedupeKey: "n1", payload: Array("test".utf8), nowMs: parts.now)
    let (stale, current) = try await lostClaim(parts)

    await parts.processor.process(stale)
    #expect(await parts.storage.item(id)?.status == .processing)
    #expect(parts.stats.snapshot.verified == 0)

    await parts.processor.process(current)
    #expect(await parts.storage.item(id)?.status == .verified)
    #expect(await parts.storage.item(id)?.outcome == "informational: TEST")
  }
}

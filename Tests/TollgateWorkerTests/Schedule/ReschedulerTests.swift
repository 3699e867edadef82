import Testing
import TollgateCore

@testable import TollgateWorker

@Suite("Rescheduler and chain refresher")
struct ReschedulerTests {
  /// alice's subscription, verified at the start and due for a check 30 days later.
  func verifiedSubscription(_ parts: WorkerParts) async throws -> StoredSubscription {
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1")))
    try await parts.refresher.refresh(
      ChainReference(
        store: .appStore, appId: FakeStoreGateway.appId, lookupId: "otx-1", purchaseId: "otx-1", environment: nil),
      claimant: "alice", completes: nil, reason: "purchase")
    return try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
  }

  @Test("a due subscription is read again from the store and its new state written")
  func reverified() async throws {
    let parts = WorkerParts()
    let start = parts.now
    let first = try await verifiedSubscription(parts)
    let due = try #require(first.nextCheckAtMs)
    parts.clock.set(due)
    parts.gateway.answer(
      "otx-1", .success(.monthly("otx-1", purchasedAtMs: start, expiresAtMs: start + 60 * WorkerParts.day, asOfMs: due))
    )
    let dueNow = await parts.claimDue()
    #expect(dueNow.map(\.subscription.purchaseId) == ["otx-1"])
    for check in dueNow { await parts.rescheduler.reverify(check) }

    let after = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(after.expiresAtMs == start + 60 * WorkerParts.day)
    #expect(after.verifiedAtMs == due)
    #expect((after.nextCheckAtMs ?? 0) > due)
    #expect(await parts.storage.events(userId: "alice").map(\.kind) == ["purchased", "renewed"])
    #expect(parts.gateway.fetched.last?.lookupId == "otx-1")
  }

  @Test("a failed check postpones with backoff and counts the failure; the verified state stays, whatever the kind")
  func failurePostpones() async throws {
    for failure in [
      StoreFailure(.transient, "HTTP 503", retryAfterMs: 30_000), .final("unknown"),
      StoreFailure(.needsOperator, "key"),
    ] {
      let parts = WorkerParts()
      let first = try await verifiedSubscription(parts)
      parts.clock.set(try #require(first.nextCheckAtMs))
      parts.gateway.answer("otx-1", .failure(failure))
      await parts.rescheduler.reverify(
        try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")))

      let after = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
      #expect(after.failures == 1)
      #expect(after.state == first.state)
      #expect(after.expiresAtMs == first.expiresAtMs)
      #expect(after.verifiedAtMs == first.verifiedAtMs)
      #expect((after.nextCheckAtMs ?? 0) >= parts.now + (failure.retryAfterMs ?? 500))
      #expect(await parts.storage.entitlements(userId: "alice").count == 1)
      #expect(parts.stats.snapshot.storeFailures == 1)
    }
  }

  @Test("a subscription whose app is no longer configured is looked at again a day later")
  func appRemoved() async throws {
    let parts = WorkerParts()
    let first = try await verifiedSubscription(parts)
    parts.gateway.state.withLock { _ = $0.removedApps.insert(FakeStoreGateway.appId) }
    let fetches = parts.gateway.fetched.count
    await parts.rescheduler.reverify(first)
    let after = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(after.nextCheckAtMs == parts.now + WorkerParts.day)
    #expect(after.failures == 1)
    #expect(parts.gateway.fetched.count == fetches)
  }

  @Test("two refreshes of one chain never interleave: the later read is written last")
  func oneChainAtATime() async throws {
    let parts = WorkerParts()
    let start = parts.now
    parts.gateway.answer(
      "otx-1",
      .success(.monthly("otx-1", purchasedAtMs: start, expiresAtMs: start + 30 * WorkerParts.day, asOfMs: start)),
      .success(.monthly("otx-1", purchasedAtMs: start, expiresAtMs: start + 60 * WorkerParts.day, asOfMs: start)))
    let reference = ChainReference(
      store: .appStore, appId: FakeStoreGateway.appId, lookupId: "otx-1", purchaseId: "otx-1", environment: nil)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<2 {
        group.addTask { try await parts.refresher.refresh(reference, claimant: "alice", completes: nil, reason: "t") }
      }
      try await group.waitForAll()
    }
    #expect(
      await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.expiresAtMs == start + 60
        * WorkerParts.day)
  }
}

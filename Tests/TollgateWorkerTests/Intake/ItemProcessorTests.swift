import Testing
import TollgateCore

@testable import TollgateWorker

@Suite("Item processor")
struct ItemProcessorTests {
  func submission(_ receipt: String, user: String = "alice", store: Store = .appStore) -> PurchaseSubmission {
    PurchaseSubmission(userId: user, store: store, receipt: receipt, appId: FakeStoreGateway.appId)
  }

  @Test("a verified submission is stored, bound to its user, with entitlements and events, and the item ends verified")
  func verified() async throws {
    let parts = WorkerParts()
    parts.gateway.answer("otx-1", .success(parts.boughtNow("otx-1")))
    let id = try await parts.storage.enqueue(submission("otx-1"), nowMs: parts.now)
    await parts.processDue()

    let item = try #require(await parts.storage.item(id))
    #expect(item.status == .verified)
    #expect(item.outcome?.hasPrefix("active until") == true)
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1"))
    #expect(stored.userId == "alice")
    #expect(stored.state == .active)
    #expect(stored.verifiedAtMs == parts.now)
    #expect((stored.nextCheckAtMs ?? 0) > parts.now)
    #expect(await parts.storage.entitlements(userId: "alice").map(\.entitlement) == ["premium"])
    #expect(await parts.storage.events(userId: "alice").map(\.kind) == ["purchased"])
    #expect(parts.stats.snapshot.verified == 1)
  }

  @Test("a final answer from the store rejects the submission with the store's reason, and writes nothing else")
  func finalRejection() async throws {
    let parts = WorkerParts()
    parts.gateway.answer("otx-1", .failure(.final("transaction otx-1 is unknown to the store")))
    let id = try await parts.storage.enqueue(submission("otx-1"), nowMs: parts.now)
    await parts.processDue()

    let item = try #require(await parts.storage.item(id))
    #expect(item.status == .rejected)
    #expect(item.outcome == "transaction otx-1 is unknown to the store")
    #expect(await parts.storage.allSubscriptions().isEmpty)
    #expect(await parts.storage.entitlements(userId: "alice").isEmpty)
    #expect(parts.stats.snapshot.rejected == 1)
    #expect(parts.stats.snapshot.storeFailures == 0)
  }

  @Test("store trouble puts the item back for later, with backoff and Retry-After; it lands once the store answers")
  func transientRetried() async throws {
    let parts = WorkerParts()
    parts.gateway.answer(
      "otx-1", .failure(StoreFailure(.transient, "HTTP 503", retryAfterMs: 5_000)), .success(parts.boughtNow("otx-1")))
    let id = try await parts.storage.enqueue(submission("otx-1"), nowMs: parts.now)
    await parts.processDue()

    let waiting = try #require(await parts.storage.item(id))
    #expect(waiting.status == .pending)
    #expect(waiting.lastError == "HTTP 503")
    #expect(waiting.nextAttemptAtMs >= parts.now + 5_000)
    #expect(await parts.storage.allSubscriptions().isEmpty)
    #expect(parts.stats.snapshot.storeFailures == 1)
    #expect(parts.stats.snapshot.rejected == 0)

    // Not before it is due.
    await parts.processDue()
    #expect(parts.gateway.fetched.count == 1)

    parts.clock.advance(byMs: waiting.nextAttemptAtMs - parts.now)
    await parts.processDue()
    #expect(await parts.storage.item(id)?.status == .verified)
    #expect(await parts.storage.subscription(store: .appStore, purchaseId: "otx-1")?.userId == "alice")
  }

  @Test("backoff grows with the attempts")
  func backoffGrows() async throws {
    let parts = WorkerParts()
    parts.gateway.answer("otx-1", .failure(StoreFailure(.transient, "timeout")))
    let id = try await parts.storage.enqueue(submission("otx-1"), nowMs: parts.now)
    var delays: [Int64] = []
    for _ in 0..<4 {
      let before = parts.now
      await parts.processDue()
      let next = try #require(await parts.storage.item(id)).nextAttemptAtMs
      delays.append(next - before)
      parts.clock.set(next)
    }
    // Earlier attempts 0…3 with a 1 s base: ceilings 1, 1, 2, 4 s, each jittered down to half at most.
    #expect(delays[0] >= 500 && delays[0] <= 1_000)
    #expect(delays[3] >= 2_000 && delays[3] <= 4_000)
    #expect(await parts.storage.item(id)?.status == .pending)
  }

  @Test("an operator error (our credentials) keeps the item pending: never the buyer's fault")
  func operatorKeepsPending() async throws {
    let parts = WorkerParts()
    parts.gateway.answer("otx-1", .failure(StoreFailure(.needsOperator, "the store refused our API key")))
    let id = try await parts.storage.enqueue(submission("otx-1"), nowMs: parts.now)
    await parts.processDue()

    let item = try #require(await parts.storage.item(id))
    #expect(item.status == .pending)
    #expect(item.outcome == nil)
    #expect(item.lastError == "the store refused our API key")
    #expect(item.nextAttemptAtMs > parts.now)
    #expect(parts.stats.snapshot.rejected == 0)
    #expect(parts.stats.snapshot.lastStoreError == "the store refused our API key")
  }

  @Test("a purchase the store does not know yet is retried within the window, lands once the store knows it")
  func notFoundRetriedWhileYoung() async throws {
    let parts = WorkerParts { $0.notFoundRetryWindowMs = 600_000 }
    parts.gateway.answer(
      "otx-1", .failure(StoreFailure(.notFound, "HTTP 404, errorCode 4040010")), .success(parts.boughtNow("otx-1")))
    let id = try await parts.storage.enqueue(submission("otx-1"), nowMs: parts.now)
    await parts.processDue()

    let waiting = try #require(await parts.storage.item(id))
    #expect(waiting.status == .pending)
    #expect(waiting.lastError == "HTTP 404, errorCode 4040010")
    #expect(parts.stats.snapshot.rejected == 0)

    parts.clock.set(waiting.nextAttemptAtMs)
    await parts.processDue()
    #expect(await parts.storage.item(id)?.status == .verified)
    #expect(await parts.storage.entitlements(userId: "alice").map(\.entitlement) == ["premium"])
  }

  @Test("a purchase the store still does not know after the window is rejected")
  func notFoundFinalAfterWindow() async throws {
    let parts = WorkerParts { $0.notFoundRetryWindowMs = 600_000 }
    parts.gateway.answer("otx-1", .failure(StoreFailure(.notFound, "HTTP 404, errorCode 4040010")))
    let id = try await parts.storage.enqueue(submission("otx-1"), nowMs: parts.now)
    var rounds = 0
    while await parts.storage.item(id)?.status == .pending, rounds < 100 {
      await parts.processDue()
      if let next = await parts.storage.item(id)?.nextAttemptAtMs, next > parts.now { parts.clock.set(next) }
      rounds += 1
    }
    let item = try #require(await parts.storage.item(id))
    #expect(item.status == .rejected)
    #expect(item.outcome == "HTTP 404, errorCode 4040010")
    #expect(parts.now - item.item.receivedAtMs >= 600_000)
    #expect(parts.gateway.fetched.count > 2)
  }

  @Test("a purchase from a store without a gateway is rejected by name")
  func storeWithoutGateway() async throws {
    let parts = WorkerParts()
    let id = try await parts.storage.enqueue(submission("token", store: .googlePlay), nowMs: parts.now)
    await parts.processDue()
    #expect(await parts.storage.item(id)?.status == .rejected)
    #expect(await parts.storage.item(id)?.outcome == "google_play purchases are not verified by this version yet")
    #expect(parts.gateway.fetched.isEmpty)
  }

  @Test("a notification is read again from the store; an informational one just ends")
  func notifications() async throws {
    let parts = WorkerParts()
    parts.gateway.answer("otx-9", .success(parts.boughtNow("otx-9")))
    let (changed, _) = try await parts.storage.storeNotification(
      route: FakeStoreGateway.route, dedupeKey: "a", payload: Array("otx-9".utf8), nowMs: parts.now)
    let (test, _) = try await parts.storage.storeNotification(
      route: FakeStoreGateway.route, dedupeKey: "b", payload: Array("test".utf8), nowMs: parts.now)
    let (unknown, _) = try await parts.storage.storeNotification(
      route: "elsewhere.v1", dedupeKey: "c", payload: [1], nowMs: parts.now)
    await parts.processDue()

    #expect(await parts.storage.item(changed)?.status == .verified)
    #expect(parts.gateway.fetched.map(\.lookupId) == ["otx-9"])
    // Nobody submitted it yet: stored without a user, and no user's entitlements change.
    let stored = try #require(await parts.storage.subscription(store: .appStore, purchaseId: "otx-9"))
    #expect(stored.userId == nil)
    #expect(await parts.storage.item(test)?.outcome == "informational: TEST")
    #expect(await parts.storage.item(unknown)?.status == .rejected)
    #expect(await parts.storage.item(unknown)?.outcome == "unknown notification route elsewhere.v1")
  }

  @Test("a notification that fails verification is rejected; a store outage while verifying it is retried")
  func notificationFailures() async throws {
    let parts = WorkerParts()
    parts.gateway.state.withLock { $0.notificationFailure = StoreFailure(.transient, "HTTP 500") }
    let (id, _) = try await parts.storage.storeNotification(
      route: FakeStoreGateway.route, dedupeKey: "a", payload: Array("otx-9".utf8), nowMs: parts.now)
    await parts.processDue()
    #expect(await parts.storage.item(id)?.status == .pending)

    parts.gateway.state.withLock { $0.notificationFailure = .final("notification: invalidSignature") }
    parts.clock.advance(byMs: 120_000)
    await parts.processDue()
    #expect(await parts.storage.item(id)?.status == .rejected)
    #expect(await parts.storage.item(id)?.outcome == "notification: invalidSignature")
  }
}

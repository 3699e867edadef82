import Logging
import Synchronization
import Testing
import TollgateCore
import TollgateTesting

@testable import TollgateWorker

/// Issue 26 item 5: the store health the outage policy reads is shared through storage, so two
/// workers on one database evaluate a chain alike, and only one of them ends an outage.
@Suite("Store health shared by workers")
struct SharedStoreHealthTests {
  static let day = WorkerParts.day

  /// Two workers' verification parts (each its own `StoreHealth` and its own view of the store)
  /// over one storage and one clock: two worker processes on one database.
  struct TwoWorkers {
    struct Worker {
      let gateway: FakeStoreGateway
      let parts: VerificationParts
      var health: StoreHealth { parts.refresher.health }
    }

    let clock = ManualClock(nowMs: WorkerParts.start)
    let storage = FakeWorkerStorage()
    let log = CapturedLog()
    let a: Worker
    let b: Worker

    init() {
      let catalog = ProductCatalog(
        apps: [WorkerParts.app(.appStore)], entitlements: [EntitlementDefinition(id: "premium")],
        products: [ProductConfig(productId: "monthly", store: .appStore, entitlements: ["premium"])])
      func worker(_ name: String, storage: FakeWorkerStorage, clock: ManualClock, log: CapturedLog) -> Worker {
        let gateway = FakeStoreGateway(store: .appStore)
        let settings = WorkerSettings()
        let parts = VerificationParts(
          storage: storage, gateways: StoreGateways([gateway]), catalog: catalog, settings: settings,
          backoff: Backoff(baseMs: 1_000, maxMs: 60_000), stats: WorkerStats(stores: [.appStore]),
          nowMs: clock.function, logger: Logger(label: "test.worker.\(name)") { _ in log.handler })
        return Worker(gateway: gateway, parts: parts)
      }
      a = worker("a", storage: storage, clock: clock, log: log)
      b = worker("b", storage: storage, clock: clock, log: log)
    }

    var now: Int64 { clock.nowMs }

    /// `worker` asks the store for `purchaseId`'s chain (its scripted answer decides how it goes).
    func read(_ purchaseId: String, by worker: Worker) async {
      let reference = ChainReference(
        store: .appStore, appId: FakeStoreGateway.appId, lookupId: purchaseId, purchaseId: purchaseId,
        environment: .sandbox)
      _ = try? await worker.parts.refresher.refresh(reference, claim: nil, completes: nil, reason: "test")
    }

    /// A renewing monthly subscription whose period ended `daysAgo` days ago, its renewal not
    /// confirmed: past the catalog's renewal leeway, within the outage's.
    func lapsed(_ purchaseId: String, daysAgo: Int64) -> VerifiedChain {
      .monthly(
        purchaseId, purchasedAtMs: now - (30 + daysAgo) * day, expiresAtMs: now - daysAgo * day,
        asOfMs: now - (30 + daysAgo) * day)
    }
  }

  @Test("a failure worker A sees puts worker B's evaluations under the outage policy within one refresh")
  func outageSeenByTheOtherWorker() async throws {
    let w = TwoWorkers()
    let chain = w.lapsed("otx-1", daysAgo: 2)
    #expect(w.b.parts.reconciler.evaluator.evaluate(chain.history, at: w.now).reason != .storeUnreachable)

    w.a.gateway.answer("otx-2", .failure(StoreFailure(.transient, "HTTP 503")))
    let askedAt = w.now
    await w.read("otx-2", by: w.a)
    w.clock.advance(byMs: 1_000)
    #expect(w.a.health.failingStores == [.appStore], "the worker that saw it knows at once")

    await w.b.health.refresh()
    #expect(w.b.health.failingStores == [.appStore])
    #expect(w.b.health.outages == [.appStore: askedAt], "since when, as the other worker saw it")
    let evaluation = w.b.parts.reconciler.evaluator.evaluate(chain.history, at: w.now)
    #expect(evaluation.reason == .storeUnreachable)
    #expect(evaluation.accessEndsAtMs == chain.history.transactions[0].expiresDateMs + 7 * Self.day)
    // Both workers now evaluate the chain alike.
    let byA = w.a.parts.reconciler.evaluator.evaluate(chain.history, at: w.now)
    #expect(byA.reason == evaluation.reason && byA.accessEndsAtMs == evaluation.accessEndsAtMs)
  }

  @Test("of two workers that see the store answer again at once, exactly one ends the outage")
  func oneWorkerEndsTheOutage() async throws {
    let w = TwoWorkers()
    for round in 0..<20 {
      await w.a.health.failed(.appStore, atMs: w.now)
      if round.isMultiple(of: 2) {
        await w.b.health.refresh()  // B learns of the outage from storage
      } else {
        await w.b.health.failed(.appStore, atMs: w.now + 1)  // B's own calls fail too
      }
      #expect(w.b.health.failingStores == [.appStore])
      async let endedByA = w.a.health.succeeded(.appStore, nowMs: w.now)
      async let endedByB = w.b.health.succeeded(.appStore, nowMs: w.now)
      let ended = await [endedByA, endedByB]
      #expect(ended.filter { $0 }.count == 1, "round \(round): \(ended)")
      #expect(w.a.health.failingStores.isEmpty && w.b.health.failingStores.isEmpty)
      #expect(try await w.storage.storeOutages().isEmpty)
    }
  }

  @Test("a worker whose snapshot still shows an outage another worker ended is not told it ended it")
  func outageEndedElsewhere() async throws {
    let w = TwoWorkers()
    let chain = w.lapsed("otx-1", daysAgo: 2)
    w.a.gateway.answer("otx-1", .failure(StoreFailure(.transient, "HTTP 503")))
    await w.read("otx-1", by: w.a)
    await w.b.health.refresh()

    // A's store answers again: A ends the outage.
    w.a.gateway.answer("otx-3", .success(w.lapsed("otx-3", daysAgo: -20)))
    await w.read("otx-3", by: w.a)
    #expect(w.a.health.failingStores.isEmpty)
    #expect(w.b.health.failingStores == [.appStore], "B has not refreshed yet")
    // Within one refresh, B evaluates the chain as A does.
    await w.b.health.refresh()
    #expect(w.b.health.failingStores.isEmpty)
    #expect(w.b.parts.reconciler.evaluator.evaluate(chain.history, at: w.now).reason != .storeUnreachable)

    // B's snapshot shows an outage A ended (B did not refresh since): B's success is not the end.
    await w.a.health.failed(.appStore, atMs: w.now)
    await w.b.health.refresh()
    #expect(await w.a.health.succeeded(.appStore, nowMs: w.now))
    #expect(await w.b.health.succeeded(.appStore, nowMs: w.now) == false)
    #expect(w.b.health.failingStores.isEmpty)
  }

  @Test("an outage keeps the earliest failure any worker saw")
  func earliestFailureKept() async throws {
    let w = TwoWorkers()
    await w.b.health.failed(.appStore, atMs: w.now + 500)
    await w.a.health.failed(.appStore, atMs: w.now)  // a slower call, asked earlier
    await w.b.health.failed(.appStore, atMs: w.now + 900)
    await w.b.health.refresh()
    #expect(w.b.health.outages == [.appStore: w.now])
  }

  @Test("an outage of a store this worker does not read (another's configuration, a dropped store) is left out")
  func otherStoresLeftOut() async throws {
    let w = TwoWorkers()
    try await w.storage.recordStoreFailure(.amazon, atMs: w.now)
    await w.a.health.failed(.appStore, atMs: w.now)
    await w.b.health.refresh()
    #expect(w.b.health.outages == [.appStore: w.now])
  }

  @Test("storage that cannot be read keeps the last snapshot, and says so once")
  func unreadableStorageKeepsSnapshot() async throws {
    let w = TwoWorkers()
    await w.a.health.failed(.appStore, atMs: w.now)
    await w.b.health.refresh()
    await w.storage.failStoreHealthReads(true)
    #expect(await w.a.health.succeeded(.appStore, nowMs: w.now))
    for _ in 0..<5 { await w.b.health.refresh() }
    #expect(w.b.health.failingStores == [.appStore], "the last snapshot stays")
    #expect(w.log.count(level: .error, containing: "could not be read") == 1)

    await w.storage.failStoreHealthReads(false)
    await w.b.health.refresh()
    #expect(w.b.health.failingStores.isEmpty)
    #expect(w.log.count(level: .notice, containing: "read from storage again") == 1)
  }

  @Test("evaluations and successes read the snapshot, not storage")
  func hotPathReadsNoStorage() async throws {
    let w = TwoWorkers()
    let chain = w.lapsed("otx-1", daysAgo: 2)
    await w.b.health.refresh()
    let reads = await w.storage.storeHealthBook.reads
    for n in 0..<50 {
      _ = w.b.parts.reconciler.evaluator.evaluate(chain.history, at: w.now)
      w.b.gateway.answer("ok-\(n)", .success(w.lapsed("ok-\(n)", daysAgo: -20)))
      await w.read("ok-\(n)", by: w.b)
    }
    #expect(await w.storage.storeHealthBook.reads == reads)
    #expect(await w.storage.allSubscriptions().count == 50, "the reads were applied")
  }

  @Test("the refresh part picks up another worker's outage on its own, within a few polls")
  func keepFreshPicksUpOutages() async throws {
    let w = TwoWorkers()
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await w.b.health.keepFresh(everyMs: 5) }
      await w.a.health.failed(.appStore, atMs: w.now)
      let seen = await eventually(timeout: .seconds(20)) { w.b.health.failingStores == [.appStore] }
      #expect(seen != nil)
      #expect(await w.a.health.succeeded(.appStore, nowMs: w.now))
      let ended = await eventually(timeout: .seconds(20)) { w.b.health.failingStores.isEmpty }
      #expect(ended != nil)
      group.cancelAll()
    }
  }
}

/// Log lines kept for a test to count (level and message).
final class CapturedLog: Sendable {
  private let lines = Mutex<[(Logger.Level, String)]>([])

  func count(level: Logger.Level, containing text: String) -> Int {
    lines.withLock { $0.filter { $0.0 == level && $0.1.contains(text) }.count }
  }

  var handler: Handler { Handler(sink: self) }

  struct Handler: LogHandler {
    let sink: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      sink.lines.withLock { $0.append((event.level, "\(event.message)")) }
    }
  }
}

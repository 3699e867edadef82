import CoreMetrics
import Foundation
import Logging
import Testing
import TollgateCore
import TollgateTesting

@testable import TollgateWorker

/// The worker's loop renews the claims it holds (`VerifierWorker.loop`, `renewCheckClaims`): a
/// due check that waits past its lease stays its worker's and its chain is read from the store
/// once.
@Suite("Worker loop claim renewal")
struct WorkerLoopClaimRenewalTests {
  /// Long enough that a renewal due every third of it is never late by two thirds of it on busy
  /// cores (300 ms was, once, in a parallel run of the whole suite).
  static let leaseMs: Int64 = 1_500
  /// The chain's key in the fake's book of check claims.
  static let key = "\(Store.appStore.rawValue):otx-w"

  static func wallMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000) }

  @Test("a due check waiting past its lease keeps its claim: nobody claims it again, the store is asked once")
  func checkWaitingPastItsLeaseKeepsItsClaim() async throws {
    let storage = FakeWorkerStorage()
    let gateway = FakeStoreGateway()
    let now = Self.wallMs()
    var due = WorkerStorageConformance.subscription("otx-w", user: "alice", expiresAtMs: now - 1_000)
    due.appId = FakeStoreGateway.appId
    try await storage.apply(WorkerStorageConformance.change(due), recompute: WorkerStorageConformance.recompute)
    gateway.answer(
      "otx-w", .success(.monthly("otx-w", purchasedAtMs: now, expiresAtMs: now + 86_400_000, asOfMs: now)))
    // The check's write waits (a slow transaction, busy cores) for three leases.
    let hold = await storage.holdNextApply(purchaseId: "otx-w")
    var settings = WorkerSettings()
    settings.listen = "127.0.0.1:0"
    settings.adminListen = "127.0.0.1:0"
    settings.leaseMs = Self.leaseMs
    settings.pollMs = 50
    let catalog = ProductCatalog(
      apps: [AppConfig(id: "ios", store: .appStore, bundleId: FakeStoreGateway.appId)],
      entitlements: [EntitlementDefinition(id: "premium")],
      products: [ProductConfig(productId: "monthly", entitlements: ["premium"])])
    let worker = try VerifierWorker(
      configuration: WorkerConfiguration(catalog: catalog, worker: settings), storage: storage, gateways: [gateway],
      environment: [:], nowMs: { Self.wallMs() },
      logger: Logger(label: "test.loop", factory: { _ in SwiftLogNoOpLogHandler() }))
    let task = Task { try await worker.run() }
    defer { task.cancel() }

    #expect(await hold.arrival(), "the worker made the check")
    let token = await storage.checkBook.tokens[Self.key]
    #expect(token != nil, "the check is claimed")
    try await Task.sleep(for: .milliseconds(3 * Self.leaseMs))
    #expect(await storage.checkBook.tokens[Self.key] == token, "the loop did not claim its own check again")
    #expect(
      await storage.claimDueChecks(nowMs: Self.wallMs(), limit: 10, leaseMs: Self.leaseMs).isEmpty,
      "another worker is not handed the check")
    hold.release()
    for _ in 0..<100 {
      if await storage.subscription(store: .appStore, purchaseId: "otx-w")?.version == 2 { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(await storage.subscription(store: .appStore, purchaseId: "otx-w")?.version == 2, "the check wrote")
    try await Task.sleep(for: .milliseconds(Self.leaseMs))
    #expect(gateway.fetched.map(\.lookupId) == ["otx-w"], "the chain was read from the store once")
    task.cancel()
    _ = await task.result
  }
}

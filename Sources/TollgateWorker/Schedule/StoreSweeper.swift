import Logging
import TollgateCore

/// Once a day, asks every store what it changed outside its notifications (`StoreGateway.sweep`:
/// Google's voided purchases) and reads those chains again, so a refund whose notification was
/// lost still ends access. The first sweep after start looks back `firstLookBackMs` (a worker
/// that was down does not miss a window); later ones look back one interval plus a day of overlap.
/// A chain the worker has never seen is skipped (nobody has access through it), and so is one
/// whose stored history already holds every reported revocation.
struct StoreSweeper: Sendable {
  let gateways: StoreGateways
  let refresher: ChainRefresher
  let storage: any WorkerStorage
  let stats: WorkerStats
  let intervalMs: Int64
  let nowMs: @Sendable () -> Int64
  let logger: Logger
  static let firstLookBackMs: Int64 = 30 * 86_400_000

  /// Sweeps each store now and then every `intervalMs` of the worker's clock (which may follow a
  /// simulator's), until cancelled: each store's sweep while this worker holds its job lease
  /// (`JobLease.sweep`, `SingletonJobs`), so one worker of those on the database sweeps it. What a
  /// sweep writes goes through `apply`, conditional on the chain's version like every refresh.
  func run(jobs: SingletonJobs) async {
    await withTaskGroup(of: Void.self) { group in
      for gateway in gateways.all {
        group.addTask {
          await jobs.run(JobLease.sweep(gateway.store)) { _ in
            var lookBackMs = Self.firstLookBackMs
            await ClockSchedule.every(intervalMs, nowMs: nowMs) { now in
              await sweep(gateway, sinceMs: now - lookBackMs)
              lookBackMs = intervalMs + 86_400_000
            }
          }
        }
      }
    }
  }

  /// One sweep of every store; returns how many chains were read again.
  @discardableResult
  func sweepOnce(sinceMs: Int64) async -> Int {
    var refreshed = 0
    for gateway in gateways.all { refreshed += await sweep(gateway, sinceMs: sinceMs) }
    return refreshed
  }

  /// One sweep of one store; returns how many chains were read again.
  @discardableResult
  func sweep(_ gateway: any StoreGateway, sinceMs: Int64) async -> Int {
    var refreshed = 0
    let references: [ChainReference]
    do throws(StoreFailure) {
      references = try await gateway.sweep(sinceMs: sinceMs)
    } catch {
      stats.storeFailure(error, store: gateway.store, atMs: nowMs())
      logger.warning(
        "the store's sweep failed; the next one looks back further",
        metadata: ["store.name": "\(gateway.store.rawValue)", "error": "\(error)"])
      return 0
    }
    for reference in references where await needsRead(reference) {
      do {
        try await refresher.refresh(reference, claim: nil, completes: nil, reason: "store sweep (voided purchase)")
        refreshed += 1
      } catch {
        // The chain's own schedule and the next sweep read it again; nothing changes meanwhile.
        logger.warning(
          "reading a swept chain failed",
          metadata: [
            "store.name": "\(reference.store.rawValue)",
            "subscription.purchase_id": "\(reference.store.loggable(reference.lookupId))", "error": "\(error)",
          ])
      }
    }
    return refreshed
  }

  private func needsRead(_ reference: ChainReference) async -> Bool {
    guard
      let stored = try? await storage.subscription(
        store: reference.store, purchaseId: reference.purchaseId ?? reference.lookupId)
    else { return false }
    return reference.revocations.contains { revocation in
      !stored.history.transactions.contains { transaction in
        guard let revokedAt = transaction.revocationDateMs, revokedAt <= revocation.revokedAtMs else { return false }
        return revocation.covers(transactionId: transaction.transactionId)
      }
    }
  }
}

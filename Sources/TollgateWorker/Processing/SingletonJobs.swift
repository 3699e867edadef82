import Foundation
import Logging
import Synchronization
import TollgateCore

/// Runs the worker's singleton jobs (the daily sweep of each store, housekeeping, the delivery to
/// each webhook endpoint) only while this worker holds each job's named lease (`JobLease`), so
/// that with several workers on one database each job runs on one of them at a time. A job's
/// lease is taken before the job starts, renewed every `renewEvery` while it runs (it lasts
/// `ttl`), and released when the job stops (graceful shutdown). A worker that cannot take a
/// lease (another one holds it) tries again every `renewEvery`; one that loses it (taken over
/// while this one was paused, or a fenced write refused: `StorageConflict`, `.leaseLost`) stops
/// that job, logs it, and tries to take the lease again later. Losing a job lease never stops
/// the worker. Lease times are wall-clock ms, whatever clock the jobs follow.
final class SingletonJobs: Sendable {
  let storage: any WorkerStorage
  /// Random per run of a worker, like the worker lease's.
  let ownerId = UUID().uuidString.lowercased()
  let ttl: Duration
  let renewEvery: Duration
  let wallMs: @Sendable () -> Int64
  let logger: Logger
  private let held = Mutex<[String: JobLease]>([:])

  init(
    storage: any WorkerStorage, ttl: Duration, renewEvery: Duration,
    wallMs: @escaping @Sendable () -> Int64 = SystemClock.nowMs, logger: Logger
  ) {
    self.storage = storage
    self.ttl = ttl
    self.renewEvery = renewEvery
    self.wallMs = wallMs
    self.logger = logger
  }

  /// The job leases this worker holds now, by name (for `/health`).
  var heldNames: [String] { held.withLock { $0.keys.sorted() } }

  /// Runs `job` while this worker holds the lease `name`, passing it the lease its writes are to
  /// carry, until the task is cancelled or the job ends on its own. A job stops when it throws;
  /// when it threw `.leaseLost`, or the lease was taken over, it starts again once the lease is
  /// taken again. Never throws.
  func run(_ name: String, _ job: @escaping @Sendable (JobLease) async throws -> Void) async {
    var failures = 0
    while !Task.isCancelled {
      guard let lease = await take(name, failures: &failures) else {
        try? await Task.sleep(for: renewEvery)
        continue
      }
      held.withLock { $0[name] = lease }
      let outcome = await hold(lease, job)
      held.withLock { $0[name] = nil }
      switch outcome {
      case .stopped:
        await release(lease)
        return
      case .lost(let reason):
        logger.notice(
          "lost a job lease; the job stops here until this worker holds the lease again",
          metadata: ["job.lease": "\(name)", "job.generation": "\(lease.generation)", "reason": "\(reason)"])
      case .failed(let error):
        await release(lease)
        logger.error(
          "a singleton job failed; it starts again once this worker holds its lease",
          metadata: ["job.lease": "\(name)", "error": "\(error)"])
      }
      try? await Task.sleep(for: renewEvery)
    }
  }

  private enum Outcome: Sendable {
    /// Cancelled (shutdown), or the job ended on its own.
    case stopped
    case lost(String)
    case failed(String)
  }

  /// Runs `job` beside the lease's renewal; whichever ends first ends the other.
  private func hold(_ lease: JobLease, _ job: @escaping @Sendable (JobLease) async throws -> Void) async -> Outcome {
    await withTaskGroup(of: Outcome.self) { group in
      group.addTask {
        do {
          try await job(lease)
          return .stopped
        } catch let conflict as StorageConflict where conflict.kind == .leaseLost {
          return .lost(conflict.message)
        } catch {
          return Task.isCancelled ? .stopped : .failed(String(describing: error))
        }
      }
      group.addTask { await self.keepRenewed(lease) }
      let first = await group.next() ?? .stopped
      group.cancelAll()
      // The other one's outcome (cancelled) says nothing more.
      while await group.next() != nil {}
      return first
    }
  }

  /// Renews `lease` every `renewEvery` until cancelled (`.stopped`); `.lost` once another
  /// worker holds it, or once it could not be renewed for `ttl` (it may have expired meanwhile).
  private func keepRenewed(_ lease: JobLease) async -> Outcome {
    var renewedAtMs = wallMs()
    while true {
      do { try await Task.sleep(for: renewEvery) } catch { return .stopped }
      do {
        guard
          let renewed = try await storage.takeJobLease(
            name: lease.name, ownerId: ownerId, nowMs: wallMs(), ttlMs: ttl.milliseconds)
        else { return .lost("another worker holds it") }
        guard renewed.generation == lease.generation else {
          // Taken over and expired again meanwhile: this holding's writes are fenced off already;
          // the job starts again under the new one (the next take renews it).
          return .lost("it was taken over meanwhile")
        }
        renewedAtMs = wallMs()
      } catch {
        if wallMs() - renewedAtMs >= ttl.milliseconds {
          return .lost("it could not be renewed: \(error)")
        }
        logger.warning(
          "renewing a job lease failed; trying again", metadata: ["job.lease": "\(lease.name)", "error": "\(error)"])
      }
    }
  }

  /// The lease, or nil when another worker holds it or storage failed (`failures` counts the
  /// failures in a row; the first and every 30th is logged).
  private func take(_ name: String, failures: inout Int) async -> JobLease? {
    do {
      let lease = try await storage.takeJobLease(
        name: name, ownerId: ownerId, nowMs: wallMs(), ttlMs: ttl.milliseconds)
      failures = 0
      return lease
    } catch {
      failures += 1
      if failures == 1 || failures.isMultiple(of: 30) {
        logger.warning(
          "taking a job lease failed; trying again",
          metadata: ["job.lease": "\(name)", "error": "\(error)", "job.failures": "\(failures)"])
      }
      return nil
    }
  }

  /// Gives the lease up; a failure is logged (the lease then expires after `ttl`).
  private func release(_ lease: JobLease) async {
    do {
      try await storage.releaseJobLease(lease)
    } catch {
      logger.warning("releasing a job lease failed", metadata: ["job.lease": "\(lease.name)", "error": "\(error)"])
    }
  }
}

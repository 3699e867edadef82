import Foundation
import Logging
import Synchronization
import TollgateCore

#if canImport(Glibc)
  import Glibc
#endif

/// One worker per database. A worker takes the database's lease row before it does anything,
/// renews it with a heartbeat while it runs and gives it up on a graceful stop. A second worker
/// refuses to start while the lease is fresh (`WorkerLeaseError.held`, naming the holder), so no
/// due check is fetched twice. A lease is taken over when its heartbeat is older than
/// `staleAfter` (the holder was killed, its machine lost), or at once when the holder ran on this
/// machine, in this process namespace, and its process no longer exists (a restart after kill -9).
/// Heartbeats are wall-clock ms, whatever clock the worker's decisions follow.
public struct WorkerLease: Sendable {
  public struct Config: Sendable {
    /// How often the holder writes its heartbeat.
    public var heartbeat: Duration
    /// A heartbeat older than this means the holder is gone, and another worker may take over.
    public var staleAfter: Duration

    public static var defaults: Config { Config(heartbeat: .seconds(2), staleAfter: .seconds(15)) }

    public init(heartbeat: Duration, staleAfter: Duration) {
      self.heartbeat = heartbeat
      self.staleAfter = staleAfter
    }
  }

  let storage: any WorkerStorage
  let config: Config
  let ownerId = UUID().uuidString.lowercased()
  let wallMs: @Sendable () -> Int64
  let logger: Logger
  /// When this worker last took or renewed the lease (wall clock); 0 while it holds none.
  private let renewedAtMs = RenewedAt()

  init(
    storage: any WorkerStorage, config: Config, wallMs: @escaping @Sendable () -> Int64 = SystemClock.nowMs,
    logger: Logger
  ) {
    self.storage = storage
    self.config = config
    self.wallMs = wallMs
    self.logger = logger
  }

  /// Takes the lease, or throws `WorkerLeaseError.held` naming the worker that holds it.
  func acquire() async throws {
    for _ in 0..<3 {
      let now = wallMs()
      let me = WorkerLeaseHolder(
        ownerId: ownerId, host: Self.hostName, pid: getpid(), processScope: Self.processScope, acquiredAtMs: now,
        heartbeatAtMs: now)
      let current = try await storage.workerLease()
      if let current, !isGone(current, now: now) {
        throw WorkerLeaseError(
          code: .held, message: Self.heldMessage(current, now: now, config: config), holder: current)
      }
      if try await storage.takeWorkerLease(me, replacing: current?.ownerId) {
        renewedAtMs.ms.store(now, ordering: .relaxed)
        if let current {
          logger.warning(
            "took over the worker lease of a worker that is gone",
            metadata: [
              "lease.previous_pid": "\(current.pid)", "lease.previous_host": "\(current.host)",
              "lease.heartbeat_age_ms": "\(now - current.heartbeatAtMs)",
            ])
        }
        return
      }
      // Another worker took it between the look and the write: look again.
    }
    throw WorkerLeaseError(
      code: .held, message: "another worker keeps taking this database's lease; run one worker per database",
      holder: try await storage.workerLease())
  }

  /// For a worker that runs without `worker.exclusive` (and takes no lease): throws
  /// `WorkerLeaseError.held` when a worker that runs exclusively holds the lease, fresh, so the
  /// two modes never share a database.
  func refuseIfExclusiveHolder() async throws {
    let now = wallMs()
    guard let current = try await storage.workerLease(), !isGone(current, now: now) else { return }
    throw WorkerLeaseError(
      code: .held,
      message: "a worker that runs alone on this database (worker.exclusive) holds its lease: pid \(current.pid) "
        + "on host \(current.host). Workers that share a database all run with worker.exclusive false: "
        + "stop that one first, or run this one with worker.exclusive true.",
      holder: current)
  }

  /// Renews the lease every `heartbeat` until cancelled (graceful shutdown), then releases it.
  /// Throws `WorkerLeaseError.lost` when another worker took the lease over: this one must stop.
  func keepRenewed() async throws {
    var failures = 0
    while true {
      do { try await Task.sleep(for: config.heartbeat) } catch { break }
      do {
        let now = wallMs()
        if try await storage.renewWorkerLease(ownerId: ownerId, heartbeatAtMs: now) {
          renewedAtMs.ms.store(now, ordering: .relaxed)
          failures = 0
          continue
        }
      } catch {
        failures += 1
        if failures == 1 || failures.isMultiple(of: 30) {
          logger.error(
            "renewing the worker lease failed; another worker may take over once it is stale",
            metadata: ["error": "\(error)", "lease.failures": "\(failures)"])
        }
        continue
      }
      let holder = try? await storage.workerLease()
      throw WorkerLeaseError(
        code: .lost,
        message: "this worker's lease was taken over"
          + (holder.map { " by pid \($0.pid) on \($0.host)" } ?? "")
          + " (its heartbeat went stale); stopping, so that one worker runs on the database",
        holder: holder)
    }
    await release()
  }

  /// Why this worker cannot count on the lease now, for `/readyz`: it holds none, or its last
  /// renewal is older than `staleAfter` (another worker may take it over); nil while it is held.
  func notHeldReason(nowMs: Int64) -> String? {
    let renewed = renewedAtMs.ms.load(ordering: .relaxed)
    guard renewed > 0 else { return "the worker lease is not held" }
    let age = nowMs - renewed
    guard age > config.staleAfter.milliseconds else { return nil }
    return "the worker lease was last renewed \(age) ms ago: another worker may take it over"
  }

  /// Gives the lease up (graceful stop); a failure is logged: the lease then goes stale.
  func release() async {
    renewedAtMs.ms.store(0, ordering: .relaxed)
    do {
      try await storage.releaseWorkerLease(ownerId: ownerId)
    } catch {
      logger.warning("releasing the worker lease failed", metadata: ["error": "\(error)"])
    }
  }

  /// Whether `holder` can no longer be running: its heartbeat is stale, or it ran in this process
  /// scope and its process is gone.
  func isGone(_ holder: WorkerLeaseHolder, now: Int64) -> Bool {
    if now - holder.heartbeatAtMs > config.staleAfter.milliseconds { return true }
    guard !holder.processScope.isEmpty, holder.processScope == Self.processScope else { return false }
    // (A holder with this process's pid is another worker in this process: alive.)
    return holder.pid != getpid() && kill(holder.pid, 0) != 0 && errno == ESRCH
  }

  static func heldMessage(_ holder: WorkerLeaseHolder, now: Int64, config: Config) -> String {
    let since = Date(timeIntervalSince1970: Double(holder.acquiredAtMs) / 1_000).formatted(.iso8601)
    let age = Double(max(0, now - holder.heartbeatAtMs)) / 1_000
    return "another worker is running on this database: pid \(holder.pid) on host \(holder.host), since \(since); "
      + "its heartbeat was last seen \(age.formatted(.number.precision(.fractionLength(1)))) s ago. "
      + "Run one worker per database: stop that one first. If it is gone, its lease goes stale "
      + "\(config.staleAfter.milliseconds / 1_000) s after its last heartbeat and the next start takes over."
  }

  static let hostName: String = {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }()

  /// This kernel boot and process-id namespace (empty where /proc does not say).
  static let processScope: String = {
    guard
      let boot = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines),
      !boot.isEmpty,
      let namespace = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid")
    else { return "" }
    return "\(boot) \(namespace)"
  }()
}

/// When a `WorkerLease` (a value, shared by copies) was last taken or renewed.
private final class RenewedAt: Sendable {
  let ms = Atomic<Int64>(0)
}

import TollgateCore
import TollgateCrypto

/// A named lease that makes a job a singleton among the workers on one database: the daily sweep
/// of a store, housekeeping, the delivery to one webhook endpoint. A worker runs such a job only
/// while it holds the job's lease (`WorkerStorage.takeJobLease`), renews it while the job runs and
/// releases it when the job stops. Every write the job makes carries the lease and is fenced by it
/// inside its transaction: a holder whose lease was taken over (it was paused past `expiresAtMs`)
/// writes nothing (`StorageConflict`, `.leaseLost`).
public struct JobLease: Sendable, Hashable {
  /// The job: `sweep:<store>`, `housekeeping`, `webhook:<endpoint>` (`JobLease.sweep(_:)`, …). Never
  /// a secret: names are logged and shown in `/health`.
  public var name: String
  /// Random per run of a worker: only the run that took the lease renews, uses or releases it.
  public var ownerId: String
  /// The fencing token: counts every time the lease passed to another owner (a renewal by its
  /// owner keeps it). Together with `ownerId`, what each fenced write checks.
  public var generation: Int64
  /// Wall-clock ms after which another worker may take the lease over (unless it is renewed).
  public var expiresAtMs: Int64

  public init(name: String, ownerId: String, generation: Int64, expiresAtMs: Int64) {
    self.name = name
    self.ownerId = ownerId
    self.generation = generation
    self.expiresAtMs = expiresAtMs
  }

  /// Whether `other` is this same holding of the lease (same name, owner and generation): what a
  /// fenced write compares; the expiry may differ (renewals move it).
  public func isSameHolding(as other: JobLease) -> Bool {
    name == other.name && ownerId == other.ownerId && generation == other.generation
  }

  /// The daily sweep of one store (`StoreSweeper`).
  public static func sweep(_ store: Store) -> String { "sweep:\(store.rawValue)" }
  /// Housekeeping (`Housekeeping`): pruning what is past its use.
  public static let housekeeping = "housekeeping"
  /// The delivery to one webhook endpoint (`WebhookDispatcher`), by its display name (without any
  /// user, password, query or fragment the URL carries); when the URL carries any, followed by 8
  /// hex digits of its SHA-256, so two endpoints never share a lease and nothing of a secret shows.
  public static func webhook(_ endpoint: WebhookSettings) -> String {
    let display = endpoint.displayName
    guard display != endpoint.url else { return "webhook:\(display)" }
    return "webhook:\(display)#\(SHA256.hash(endpoint.url).prefix(4).hexString)"
  }

  /// The refusal of a write whose job lease is no longer held as `lease` says.
  public static func lost(_ lease: JobLease, current: JobLease?) -> StorageConflict {
    let now: String
    if let current, !current.ownerId.isEmpty {
      now = "another worker holds it now (generation \(current.generation))"
    } else {
      now = "it was released"
    }
    return StorageConflict(
      .leaseLost,
      "the job lease \(lease.name) (generation \(lease.generation)) is no longer this worker's: \(now); nothing was written"
    )
  }
}

import ArgumentParser
import Foundation
import Logging
import TollgateCore
import TollgateStorage
import TollgateStorageFactory

struct Seed: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Fill a database with synthetic users (user-0 … user-N-1) for benchmarks and demos.",
    discussion: """
      Each user holds ENTITLEMENT through an App Store monthly subscription that renews, with expiries \
      spread over the next 30 days. With --inactive-share, that share of users is instead in a state \
      without access (billing retry, expired or revoked, in turn); every tenth of the rest is in a \
      trial or grace period. Writes go through the change feed, so a running service picks them up.
      """)

  @Option(
    help:
      "The database: an SQLite file path (or sqlite:PATH), or postgres://USER@HOST:PORT/DATABASE?sslmode=MODE with the password in TOLLGATE_DATABASE_PASSWORD(_FILE) (created if missing)."
  )
  var database: String

  @Option(help: "How many users.")
  var users: Int

  @Option(help: "The entitlement each user gets.")
  var entitlement = "premium"

  @Option(help: "User id prefix.")
  var userPrefix = "user-"

  @Option(help: "Share of users (0…1) in a state without access.")
  var inactiveShare = 0.0

  func validate() throws {
    guard users > 0 else { throw ValidationError("--users must be at least 1") }
    guard (0...1).contains(inactiveShare) else { throw ValidationError("--inactive-share must be between 0 and 1") }
  }

  func run() async throws {
    let now = SystemClock.nowMs()
    let location = try StorageLocation(database)
    let storage = try await location.entitlementStorage(
      nowMs: now, create: true, connections: StorageConnections.tool, environment: ProcessInfo.processInfo.environment,
      logger: Logger(label: "tollgate.seed"))
    let started = ContinuousClock.now
    let inactiveEvery = inactiveShare > 0 ? max(1, Int((1 / inactiveShare).rounded())) : Int.max
    let batchSize = 20_000
    try await StorageLifetime.using(storage) { storage in
      var start = 0
      while start < users {
        let end = min(users, start + batchSize)
        let batch = (start..<end).map { n in
          let userId = "\(userPrefix)\(n)"
          return (userId: userId, records: [record(n: n, userId: userId, now: now, inactiveEvery: inactiveEvery)])
        }
        try await storage.replaceEntitlements(batch: batch, reason: "seed", nowMs: now)
        start = end
      }
    }
    let elapsed = ContinuousClock.now - started
    print(
      "seeded \(users) users with \(entitlement) into \(location) in \(elapsed.formatted(.units(allowed: [.seconds, .milliseconds])))"
    )
  }

  private func record(n: Int, userId: String, now: Int64, inactiveEvery: Int) -> EntitlementRecord {
    let day: Int64 = 86_400_000
    let expires = now + Int64(n % 30 + 1) * day - Int64(n % 997) * 1_000
    var record = EntitlementRecord(
      userId: userId, entitlement: entitlement, source: "app_store:\(2_000_000_000_000 + Int64(n))", store: .appStore,
      productId: "\(entitlement)_monthly", environment: .production, state: .active, willRenew: true,
      expiresAtMs: expires, accessEndsAtMs: expires + day, verifiedAtMs: now)
    if inactiveEvery != Int.max, n % inactiveEvery == inactiveEvery - 1 {
      let lapsed = now - Int64(n % 30 + 1) * day
      record.expiresAtMs = lapsed
      record.accessEndsAtMs = lapsed
      record.willRenew = false
      record.state = [SubscriptionState.billingRetry, .expired, .revoked][(n / inactiveEvery) % 3]
    } else if n % 10 == 3 {
      record.state = .trial
      record.productId = "\(entitlement)_monthly_trial"
    } else if n % 10 == 7 {
      record.state = .gracePeriod
      record.expiresAtMs = now - day
      record.accessEndsAtMs = now + 6 * day
    }
    return record
  }
}

import Logging
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateTesting
import TollgateWorker
import TollgateWorkerPostgres

/// A fresh database on the test server for each test, with one storage or two (two workers: each
/// on a pool of its own, as two processes would be).
enum PostgresWorkerDatabase {
  static let logger = Logger(label: "test.postgres.worker")

  static func withStorage<T: Sendable>(
    _ hint: String = #function, _ body: (PostgresWorkerStorage) async throws -> T
  ) async throws -> T {
    let location = try await TestPostgres.freshDatabase(hint)
    return try await PostgresTollgateDatabase.open(
      location, environment: [:], nowMs: 1, create: true, maximumConnections: 4, logger: logger
    ) { database in
      try await body(PostgresWorkerStorage(database: database, logger: logger))
    }
  }

  static func withTwoStorages<T: Sendable>(
    _ hint: String = #function, _ body: (PostgresWorkerStorage, PostgresWorkerStorage) async throws -> T
  ) async throws -> T {
    let location = try await TestPostgres.freshDatabase(hint)
    return try await PostgresTollgateDatabase.open(
      location, environment: [:], nowMs: 1, create: true, maximumConnections: 4, logger: logger
    ) { first in
      try await PostgresTollgateDatabase.open(
        location, environment: [:], nowMs: 1, create: false, maximumConnections: 4, logger: logger
      ) { second in
        try await body(
          PostgresWorkerStorage(database: first, logger: logger),
          PostgresWorkerStorage(database: second, logger: logger))
      }
    }
  }

  static func holder(_ owner: String, heartbeat: Int64) -> WorkerLeaseHolder {
    WorkerLeaseHolder(
      ownerId: owner, host: "host-\(owner)", pid: 42, processScope: "", acquiredAtMs: heartbeat,
      heartbeatAtMs: heartbeat)
  }

  /// Entitlements from the user's open grants, as the worker's recompute gives them.
  static let grantRecompute: EntitlementRecompute = { userId, _, grants in
    grants.filter { $0.revokedAtMs == nil }.map {
      EntitlementRecord(
        userId: userId, entitlement: $0.entitlement, source: $0.source, store: .promotional, productId: "",
        environment: .production, state: .active, willRenew: false, expiresAtMs: $0.expiresAtMs,
        accessEndsAtMs: $0.expiresAtMs, verifiedAtMs: $0.grantedAtMs)
    }
  }

  /// Entitlements from the user's chains.
  static let chainRecompute: EntitlementRecompute = { userId, subscriptions, _ in
    subscriptions.map { .sample(userId: userId, source: $0.history.source, expiresAtMs: $0.expiresAtMs) }
  }

  /// A purchase of `purchaseId` by `user` (nil: not bound to a user), verified at `at`.
  static func purchase(_ purchaseId: String, user: String?, at: Int64) -> SubscriptionChange {
    let history = SubscriptionHistory(
      store: .appStore, purchaseId: purchaseId, environment: .sandbox,
      transactions: [
        StoreTransaction(
          transactionId: "\(purchaseId)-1", productId: "monthly", purchaseDateMs: 0, expiresDateMs: 1_000_000)
      ],
      renewalInfo: RenewalInfo(willAutoRenew: true), asOfMs: 0)
    let subscription = StoredSubscription(
      store: .appStore, purchaseId: purchaseId, appId: "com.example", userId: user, history: history,
      evidence: VerificationEvidence(source: "test", environment: .sandbox, payloads: [], verifiedAtMs: at),
      state: .active, reason: "current_period", productId: "monthly", willRenew: true, expiresAtMs: 1_000_000,
      accessEndsAtMs: 1_000_000, appAccountToken: nil, verifiedAtMs: at, nextCheckAtMs: 1_000_000)
    return SubscriptionChange(
      subscription: subscription, transactions: [],
      events: [
        WorkerEvent(
          userId: user, kind: "purchased", store: .appStore, purchaseId: purchaseId, productId: "monthly",
          state: .active, atMs: at)
      ], completes: nil, alsoRecompute: nil, reason: "t", nowMs: at)
  }
}

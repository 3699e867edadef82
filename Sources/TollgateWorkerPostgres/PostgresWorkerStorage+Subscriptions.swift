import Logging
import PostgresNIO
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateWorker

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension PostgresWorkerStorage {
  // MARK: Subscriptions

  public func subscription(store: Store, purchaseId: String) async throws -> StoredSubscription? {
    let rows = try await database.query(
      """
      SELECT \(unescaped: Self.subscriptionColumns) FROM subscriptions
      WHERE history_json IS NOT NULL AND store = \(store.rawValue) AND store_subscription_id = \(purchaseId)
      """)
    return try rows.first.map(Self.subscription)
  }

  public func subscriptions(userId: String) async throws -> [StoredSubscription] {
    try await database.withConnection { connection in
      try await Self.subscriptions(connection, userId: userId, logger: logger)
    }
  }

  public func user(store: Store, storeUserId: String) async throws -> String? {
    try await database.query(
      """
      SELECT user_id FROM subscriptions
      WHERE store = \(store.rawValue) AND store_user_id = \(storeUserId) AND user_id IS NOT NULL
      ORDER BY updated_at_ms DESC LIMIT 1
      """
    ).first?.decode(String.self)
  }

  /// Makes every subscription of `userId` due now; returns how many.
  public func requestReverify(userId: String, nowMs: Int64) async throws -> Int {
    try await fencedTransaction { connection in
      try await connection.query(
        "UPDATE subscriptions SET next_check_at_ms = \(nowMs) WHERE user_id = \(userId) RETURNING id",
        logger: logger
      ).collect().count
    }
  }

  public func entitlements(userId: String) async throws -> [EntitlementRecord] {
    try await database.withConnection { connection in
      try await PostgresEntitlementWriter.records(connection, userId: userId, logger: logger)
    }
  }

  /// Writes one verification atomically: the subscription (and its binding to a user), its
  /// transactions, events, the recomputed entitlements of every affected user with their
  /// change-feed entries, and the completion of the inbox item that caused it. The transaction
  /// takes the change-feed and events locks first (`fencedTransaction(appendsToFeeds:)`): every
  /// write that recomputes a user (an `apply`, a grant) holds them until it commits, so no other
  /// write of the user's chains or grants lands between this recompute's read and its write.
  @discardableResult
  public func apply(_ change: SubscriptionChange, recompute: @escaping EntitlementRecompute) async throws
    -> RecordChanges
  {
    try await fencedTransaction(appendsToFeeds: true) { connection in
      try await Self.checkVersion(connection, change, logger: logger)
      let subscriptionRowId = try await Self.upsert(
        connection, change.subscription, version: change.expectedVersion + 1, nowMs: change.nowMs, logger: logger)
      try await Self.upsert(
        connection, transactions: change.transactions, subscriptionRowId: subscriptionRowId,
        store: change.subscription.store, nowMs: change.nowMs, logger: logger)
      var changes: RecordChanges = [:]
      for userId in Set([change.subscription.userId, change.alsoRecompute].compactMap { $0 }).sorted() {
        changes[userId] = try await Self.recompute(
          connection, userId: userId, reason: change.reason, nowMs: change.nowMs, recompute: recompute,
          logger: logger)
      }
      try await Self.insert(connection, events: change.events, records: changes, nowMs: change.nowMs, logger: logger)
      if let completes = change.completes {
        try await Self.finish(connection, completes, nowMs: change.nowMs, logger: logger)
      }
      return changes
    }
  }

  /// Recomputes `userId`'s entitlements inside the caller's transaction (which holds the
  /// change-feed lock): reads the user's chains and grants, runs `recompute`, and writes the
  /// records with their change-feed entry. A chain that does not decode throws
  /// (`StoredRowError`) and so rolls the whole write back.
  static func recompute(
    _ connection: PostgresSession, userId: String, reason: String, nowMs: Int64,
    recompute: EntitlementRecompute, logger: Logger
  ) async throws -> (before: [EntitlementRecord], after: [EntitlementRecord]) {
    let before = try await PostgresEntitlementWriter.records(connection, userId: userId, logger: logger)
    let after = recompute(
      userId, try await subscriptions(connection, userId: userId, logger: logger),
      try await grants(connection, userId: userId, logger: logger))
    try await PostgresEntitlementWriter.replace(
      connection, userId: userId, records: after, reason: reason, nowMs: nowMs, logger: logger)
    return (before, after)
  }

  /// The user's chains, oldest first. A row that does not decode throws (`StoredRowError`): it
  /// must never read as a missing subscription, which the next recompute would turn into lost
  /// entitlements.
  static func subscriptions(_ connection: PostgresSession, userId: String, logger: Logger) async throws
    -> [StoredSubscription]
  {
    try await connection.query(
      """
      SELECT \(unescaped: subscriptionColumns) FROM subscriptions
      WHERE history_json IS NOT NULL AND user_id = \(userId) ORDER BY id
      """, logger: logger
    ).collect().map(subscription)
  }

  static func grants(_ connection: PostgresSession, userId: String, logger: Logger) async throws
    -> [PromotionalGrant]
  {
    try await connection.query(
      """
      SELECT id, user_id, entitlement, granted_at_ms, expires_at_ms, revoked_at_ms, note FROM grants
      WHERE user_id = \(userId) ORDER BY id
      """, logger: logger
    ).collect().map { row in
      let (id, user, entitlement, grantedAtMs, expiresAtMs, revokedAtMs, note) = try row.decode(
        (Int64, String, String, Int64, Int64?, Int64?, String?).self)
      return PromotionalGrant(
        grantId: String(id), userId: user, entitlement: entitlement, grantedAtMs: grantedAtMs,
        expiresAtMs: expiresAtMs ?? 0, revokedAtMs: revokedAtMs, note: note)
    }
  }

  /// Writes the chain at `version`, ending any claim of its check (`check_token`); returns its row id.
  static func upsert(
    _ connection: PostgresSession, _ s: StoredSubscription, version: Int64, nowMs: Int64, logger: Logger
  ) async throws -> Int64 {
    if let userId = s.userId {
      try await connection.query(
        "INSERT INTO users (user_id, created_at_ms) VALUES (\(userId), \(nowMs)) ON CONFLICT (user_id) DO NOTHING",
        logger: logger)
    }
    let history = String(decoding: try JSONEncoder().encode(s.history), as: UTF8.self)
    let evidence = String(decoding: try JSONEncoder().encode(s.evidence), as: UTF8.self)
    let willRenew: Int64 = s.willRenew ? 1 : 0
    let rows = try await connection.query(
      """
      INSERT INTO subscriptions (store, store_subscription_id, app_id, user_id, product_id, environment, state,
        will_renew, purchased_at_ms, expires_at_ms, access_ends_at_ms, verified_at_ms, updated_at_ms, history_json,
        evidence_json, reason, app_account_token, next_check_at_ms, failures, store_user_id, version, check_token,
        erased_at_ms)
      VALUES (\(s.store.rawValue), \(s.purchaseId), \(s.appId), \(s.userId), \(s.productId),
        \(s.history.environment.rawValue), \(s.state.rawValue), \(willRenew), \(s.history.firstPurchaseDateMs),
        \(s.expiresAtMs), \(s.accessEndsAtMs), \(s.verifiedAtMs), \(nowMs), \(history), \(evidence), \(s.reason),
        \(s.appAccountToken), \(s.nextCheckAtMs), \(Int64(s.failures)), \(s.storeUserId), \(version), NULL,
        \(s.erasedAtMs))
      ON CONFLICT (store, store_subscription_id) DO UPDATE SET
        app_id = excluded.app_id, user_id = excluded.user_id, product_id = excluded.product_id,
        environment = excluded.environment, state = excluded.state, will_renew = excluded.will_renew,
        purchased_at_ms = excluded.purchased_at_ms, expires_at_ms = excluded.expires_at_ms,
        access_ends_at_ms = excluded.access_ends_at_ms, verified_at_ms = excluded.verified_at_ms,
        updated_at_ms = excluded.updated_at_ms, history_json = excluded.history_json,
        evidence_json = excluded.evidence_json, reason = excluded.reason,
        app_account_token = excluded.app_account_token, next_check_at_ms = excluded.next_check_at_ms,
        failures = excluded.failures, store_user_id = excluded.store_user_id, version = excluded.version,
        check_token = NULL, erased_at_ms = excluded.erased_at_ms
      RETURNING id
      """, logger: logger
    ).collect()
    return try rows.first?.decode(Int64.self) ?? 0
  }

  static func upsert(
    _ connection: PostgresSession, transactions: [TransactionRow], subscriptionRowId: Int64, store: Store,
    nowMs: Int64, logger: Logger
  ) async throws {
    for t in transactions {
      try await connection.query(
        """
        INSERT INTO transactions (subscription_id, store, store_transaction_id, product_id, purchased_at_ms,
          expires_at_ms, revoked_at_ms, revocation_reason, offer_type, environment, payload_sha256, signed_at_ms,
          recorded_at_ms, order_id)
        VALUES (\(subscriptionRowId), \(store.rawValue), \(t.storeTransactionId), \(t.productId), \(t.purchasedAtMs),
          \(t.expiresAtMs), \(t.revokedAtMs), \(t.revocationReason), \(t.offerType), \(t.environment.rawValue),
          \(t.payloadSHA256), \(t.signedAtMs), \(nowMs),
          \(PurchaseMatch.orderId(store: store, transactionId: t.storeTransactionId)))
        ON CONFLICT (store, store_transaction_id) DO UPDATE SET
          subscription_id = excluded.subscription_id, product_id = excluded.product_id,
          expires_at_ms = excluded.expires_at_ms, revoked_at_ms = excluded.revoked_at_ms,
          revocation_reason = excluded.revocation_reason, payload_sha256 = excluded.payload_sha256,
          signed_at_ms = excluded.signed_at_ms, order_id = excluded.order_id
        """, logger: logger)
    }
  }
}

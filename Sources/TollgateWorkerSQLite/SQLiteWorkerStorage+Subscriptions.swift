import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateWorker

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension SQLiteWorkerStorage {
  // MARK: Subscriptions

  public func subscription(store: Store, purchaseId: String) async throws -> StoredSubscription? {
    try await writer.read { db in
      try Self.subscriptions(
        db, where: "store = ? AND store_subscription_id = ?", [.text(store.rawValue), .text(purchaseId)]
      ).first
    }
  }

  public func subscriptions(userId: String) async throws -> [StoredSubscription] {
    try await writer.read { db in try Self.subscriptions(db, where: "user_id = ?", [.text(userId)]) }
  }

  public func user(store: Store, storeUserId: String) async throws -> String? {
    try await writer.read { db in
      try db.prepare(
        """
        SELECT user_id FROM subscriptions WHERE store = ? AND store_user_id = ? AND user_id IS NOT NULL
          ORDER BY updated_at_ms DESC LIMIT 1
        """
      ).rows([.text(store.rawValue), .text(storeUserId)]) { $0.string(at: 0) }.first
    }
  }

  /// Makes every subscription of `userId` due now; returns how many.
  public func requestReverify(userId: String, nowMs: Int64) async throws -> Int {
    try await fencedWrite { db in
      try db.execute(
        "UPDATE subscriptions SET next_check_at_ms = ? WHERE user_id = ?", [.integer(nowMs), .text(userId)])
      return db.changes
    }
  }

  public func entitlements(userId: String) async throws -> [EntitlementRecord] {
    try await writer.read { db in try db.entitlementRecords(userId: userId) }
  }

  /// Writes one verification atomically: the subscription (and its binding to a user), its
  /// transactions, events, the recomputed entitlements of every affected user with their
  /// change-feed entries, and the completion of the inbox item that caused it.
  @discardableResult
  public func apply(_ change: SubscriptionChange, recompute: @escaping EntitlementRecompute) async throws
    -> RecordChanges
  {
    try await fencedWrite { db in
      try Self.checkVersion(db, change)
      let subscriptionRowId = try Self.upsert(
        db, change.subscription, version: change.expectedVersion + 1, nowMs: change.nowMs)
      try Self.upsert(
        db, transactions: change.transactions, subscriptionRowId: subscriptionRowId, store: change.subscription.store,
        nowMs: change.nowMs)
      var changes: RecordChanges = [:]
      for userId in Set([change.subscription.userId, change.alsoRecompute].compactMap { $0 }) {
        changes[userId] = try Self.recompute(
          db, userId: userId, reason: change.reason, nowMs: change.nowMs, recompute: recompute)
      }
      try Self.insert(db, events: change.events, records: changes, nowMs: change.nowMs)
      if let completes = change.completes {
        try Self.finish(db, completes, nowMs: change.nowMs)
      }
      return changes
    }
  }

  static func recompute(
    _ db: Connection, userId: String, reason: String, nowMs: Int64, recompute: EntitlementRecompute
  ) throws -> (before: [EntitlementRecord], after: [EntitlementRecord]) {
    let before = try db.entitlementRecords(userId: userId)
    let after = recompute(
      userId, try subscriptions(db, where: "user_id = ?", [.text(userId)]), try grants(db, userId: userId))
    try db.replaceEntitlementRecords(userId: userId, records: after, reason: reason, nowMs: nowMs)
    return (before, after)
  }

  /// Writes the chain at `version`, ending any claim of its check (`check_token`).
  static func upsert(_ db: Connection, _ s: StoredSubscription, version: Int64, nowMs: Int64) throws -> Int64 {
    if let userId = s.userId {
      try db.execute(
        "INSERT INTO users (user_id, created_at_ms) VALUES (?, ?) ON CONFLICT(user_id) DO NOTHING",
        [.text(userId), .integer(nowMs)])
    }
    let history = String(decoding: try JSONEncoder().encode(s.history), as: UTF8.self)
    let evidence = String(decoding: try JSONEncoder().encode(s.evidence), as: UTF8.self)
    try db.execute(
      """
      INSERT INTO subscriptions (store, store_subscription_id, app_id, user_id, product_id, environment, state, will_renew,
        purchased_at_ms, expires_at_ms, access_ends_at_ms, verified_at_ms, updated_at_ms, history_json, evidence_json, reason,
        app_account_token, next_check_at_ms, failures, store_user_id, version, check_token, erased_at_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)
      ON CONFLICT(store, store_subscription_id) DO UPDATE SET
        app_id = excluded.app_id, user_id = excluded.user_id, product_id = excluded.product_id,
        environment = excluded.environment, state = excluded.state, will_renew = excluded.will_renew,
        purchased_at_ms = excluded.purchased_at_ms, expires_at_ms = excluded.expires_at_ms,
        access_ends_at_ms = excluded.access_ends_at_ms, verified_at_ms = excluded.verified_at_ms,
        updated_at_ms = excluded.updated_at_ms, history_json = excluded.history_json,
        evidence_json = excluded.evidence_json, reason = excluded.reason,
        app_account_token = excluded.app_account_token, next_check_at_ms = excluded.next_check_at_ms,
        failures = excluded.failures, store_user_id = excluded.store_user_id, version = excluded.version,
        check_token = NULL, erased_at_ms = excluded.erased_at_ms
      """,
      [
        .text(s.store.rawValue), .text(s.purchaseId), .text(s.appId), DatabaseValue(s.userId), .text(s.productId),
        .text(s.history.environment.rawValue), .text(s.state.rawValue), DatabaseValue(s.willRenew),
        DatabaseValue(s.history.firstPurchaseDateMs), .integer(s.expiresAtMs), .integer(s.accessEndsAtMs),
        .integer(s.verifiedAtMs), .integer(nowMs), .text(history), .text(evidence), .text(s.reason),
        DatabaseValue(s.appAccountToken), DatabaseValue(s.nextCheckAtMs), .integer(Int64(s.failures)),
        DatabaseValue(s.storeUserId), .integer(version), DatabaseValue(s.erasedAtMs),
      ])
    return try db.prepare("SELECT id FROM subscriptions WHERE store = ? AND store_subscription_id = ?")
      .rows([.text(s.store.rawValue), .text(s.purchaseId)]) { $0.int64(at: 0) }.first ?? 0
  }

  static func upsert(
    _ db: Connection, transactions: [TransactionRow], subscriptionRowId: Int64, store: Store, nowMs: Int64
  ) throws {
    let statement = try db.prepare(
      """
      INSERT INTO transactions (subscription_id, store, store_transaction_id, product_id, purchased_at_ms, expires_at_ms,
        revoked_at_ms, revocation_reason, offer_type, environment, payload_sha256, signed_at_ms, recorded_at_ms, order_id)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(store, store_transaction_id) DO UPDATE SET
        subscription_id = excluded.subscription_id, product_id = excluded.product_id, expires_at_ms = excluded.expires_at_ms,
        revoked_at_ms = excluded.revoked_at_ms, revocation_reason = excluded.revocation_reason,
        payload_sha256 = excluded.payload_sha256, signed_at_ms = excluded.signed_at_ms, order_id = excluded.order_id
      """)
    for t in transactions {
      try statement.bind([
        .integer(subscriptionRowId), .text(store.rawValue), .text(t.storeTransactionId), .text(t.productId),
        .integer(t.purchasedAtMs), DatabaseValue(t.expiresAtMs), DatabaseValue(t.revokedAtMs),
        DatabaseValue(t.revocationReason),
        DatabaseValue(t.offerType), .text(t.environment.rawValue), DatabaseValue(t.payloadSHA256),
        DatabaseValue(t.signedAtMs),
        .integer(nowMs), DatabaseValue(PurchaseMatch.orderId(store: store, transactionId: t.storeTransactionId)),
      ])
      while try statement.step() {}
    }
  }

  static let subscriptionColumns = """
    store, store_subscription_id, app_id, user_id, product_id, state, will_renew, expires_at_ms, access_ends_at_ms,
    verified_at_ms, history_json, evidence_json, reason, app_account_token, next_check_at_ms, failures, store_user_id,
    version, erased_at_ms
    """

  static func subscriptions(_ db: Connection, where clause: String, _ arguments: [DatabaseValue]) throws
    -> [StoredSubscription]
  {
    // A row that does not decode throws (`StoredRowError`): it must never read as a missing
    // subscription, which the next recompute would turn into lost entitlements.
    try db.prepare("SELECT \(subscriptionColumns) FROM subscriptions WHERE history_json IS NOT NULL AND \(clause)")
      .rows(arguments, Self.subscription)
  }

  static func grants(_ db: Connection, userId: String) throws -> [PromotionalGrant] {
    try db.prepare(
      "SELECT id, user_id, entitlement, granted_at_ms, expires_at_ms, revoked_at_ms, note FROM grants WHERE user_id = ?"
    ).rows([.text(userId)]) { row in
      PromotionalGrant(
        grantId: String(row.int64(at: 0)), userId: row.string(at: 1), entitlement: row.string(at: 2),
        grantedAtMs: row.int64(at: 3), expiresAtMs: row.int64(at: 4), revokedAtMs: row.optionalInt64(at: 5),
        note: row.optionalString(at: 6))
    }
  }
}

import Logging
import PostgresNIO
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateWorker

extension PostgresWorkerStorage {
  // MARK: Conditional apply

  /// Throws `StorageConflict` (`.chainChanged`) unless the chain is stored at
  /// `change.expectedVersion` (0: not stored). Runs inside `apply`'s transaction, after the
  /// change-feed lock every `apply` takes first, so every earlier `apply` has committed and is
  /// visible to this statement (READ COMMITTED reads what committed before each statement), and
  /// the row is locked (`FOR UPDATE`) until the commit: nobody writes the chain in between.
  static func checkVersion(_ connection: PostgresSession, _ change: SubscriptionChange, logger: Logger)
    async throws
  {
    let s = change.subscription
    let stored =
      try await connection.query(
        """
        SELECT version FROM subscriptions
        WHERE store = \(s.store.rawValue) AND store_subscription_id = \(s.purchaseId) FOR UPDATE
        """, logger: logger
      ).collect().first?.decode(Int64.self) ?? 0
    guard stored == change.expectedVersion else {
      throw StorageConflict(
        .chainChanged,
        "\(s.store.rawValue) chain \(s.store.loggable(s.purchaseId)) is at version \(stored), "
          + "not \(change.expectedVersion) as read: another write landed first; nothing was written")
    }
  }

  // MARK: Schedule

  /// Claims due checks in one transaction: the due rows are locked `FOR UPDATE SKIP LOCKED` (a
  /// check another worker is claiming right now is passed over, never handed out twice), then
  /// moved to the end of the lease under a new claim token. A due row that does not decode is
  /// not claimed: its check is put off in the same transaction, and it is logged afterwards.
  public func claimDueChecks(nowMs: Int64, limit: Int, leaseMs: Int64) async throws -> [DueCheck] {
    guard limit > 0 else { return [] }
    let leaseUntilMs = nowMs + leaseMs
    let rows = try await fencedTransaction { connection in
      let due = try await connection.query(
        """
        SELECT \(unescaped: Self.subscriptionColumns), check_claims + 1, id FROM subscriptions
        WHERE history_json IS NOT NULL AND next_check_at_ms IS NOT NULL AND next_check_at_ms <= \(nowMs)
        ORDER BY next_check_at_ms, id LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED
        """, logger: logger
      ).collect().map { row in
        let cells = row.makeRandomAccess()
        return DueRow(
          store: (try? cells[0].decode(String.self)) ?? "?", purchaseId: (try? cells[1].decode(String.self)) ?? "?",
          token: try cells[19].decode(Int64.self), rowId: try cells[20].decode(Int64.self),
          decoded: Result { try Self.subscription(row) })
      }
      let claimed = due.filter { if case .success = $0.decoded { true } else { false } }.map(\.rowId)
      let undecodable = due.filter { if case .failure = $0.decoded { true } else { false } }.map(\.rowId)
      if !claimed.isEmpty {
        // The right-hand sides read the row as it was: the token is the new claim count.
        try await connection.query(
          """
          UPDATE subscriptions SET next_check_at_ms = \(leaseUntilMs), check_claims = check_claims + 1,
            check_token = check_claims + 1
          WHERE id = ANY(\(claimed))
          """, logger: logger)
      }
      if !undecodable.isEmpty {
        try await connection.query(
          """
          UPDATE subscriptions SET next_check_at_ms = \(nowMs + Self.undecodableRetryMs)
          WHERE id = ANY(\(undecodable))
          """, logger: logger)
      }
      return due
    }
    var checks: [DueCheck] = []
    for row in rows {
      switch row.decoded {
      case .success(var subscription):
        subscription.nextCheckAtMs = leaseUntilMs
        checks.append(DueCheck(subscription: subscription, claimToken: row.token))
      case .failure(let error):
        reportUndecodable(store: row.store, purchaseId: row.purchaseId, error)
      }
    }
    return checks
  }

  /// A due row as `claimDueChecks` read it.
  struct DueRow: Sendable {
    var store: String
    var purchaseId: String
    var token: Int64
    var rowId: Int64
    var decoded: Result<StoredSubscription, any Error>
  }

  /// Extends the leases of `claims` still current (their token is the check's): the check is due
  /// at `untilMs`, in one statement.
  public func renewCheckClaims(_ claims: [CheckClaim], untilMs: Int64) async throws -> Int {
    guard !claims.isEmpty else { return 0 }
    return try await fencedTransaction { connection in
      try await Self.renewCheckClaims(connection, claims, untilMs: untilMs, logger: logger)
    }
  }

  static func renewCheckClaims(_ connection: PostgresSession, _ claims: [CheckClaim], untilMs: Int64, logger: Logger)
    async throws -> Int
  {
    let stores = claims.map(\.store.rawValue)
    let purchaseIds = claims.map(\.purchaseId)
    let tokens = claims.map(\.claimToken)
    return try await connection.query(
      """
      UPDATE subscriptions SET next_check_at_ms = \(untilMs)
      FROM unnest(\(stores)::text[], \(purchaseIds)::text[], \(tokens)::bigint[]) AS claim(store, purchase_id, token)
      WHERE subscriptions.store = claim.store AND subscriptions.store_subscription_id = claim.purchase_id
        AND subscriptions.check_token = claim.token
      RETURNING subscriptions.id
      """, logger: logger
    ).collect().count
  }

  /// After a failed store call: try again at `untilMs`, ending any claim of the check; with a
  /// `claimToken`, only while that claim is still the check's (else `.claimLost`, nothing written).
  public func postponeCheck(
    store: Store, purchaseId: String, claimToken: Int64?, untilMs: Int64, failures: Int
  ) async throws {
    try await fencedTransaction { connection in
      let rows: [PostgresRow]
      if let claimToken {
        rows = try await connection.query(
          """
          UPDATE subscriptions SET next_check_at_ms = \(untilMs), failures = \(Int64(failures)), check_token = NULL
          WHERE store = \(store.rawValue) AND store_subscription_id = \(purchaseId) AND check_token = \(claimToken)
          RETURNING id
          """, logger: logger
        ).collect()
      } else {
        rows = try await connection.query(
          """
          UPDATE subscriptions SET next_check_at_ms = \(untilMs), failures = \(Int64(failures)), check_token = NULL
          WHERE store = \(store.rawValue) AND store_subscription_id = \(purchaseId) RETURNING id
          """, logger: logger
        ).collect()
      }
      if claimToken != nil && rows.isEmpty {
        throw StorageConflict(
          .claimLost,
          "the check of \(store.rawValue) chain \(store.loggable(purchaseId)) is no longer under this claim; "
            + "nothing was written")
      }
    }
  }

  /// After an outage of `store` ends: its pending inbox items that failed before and its postponed
  /// checks become due at `nowMs`, in one transaction; returns how many.
  public func expediteRetries(store: Store, routes: [String], nowMs: Int64) async throws -> Int {
    try await fencedTransaction { connection in
      let names = [store.rawValue] + routes
      let items = try await connection.query(
        """
        UPDATE inbox SET next_attempt_at_ms = \(nowMs)
        WHERE status = 'pending' AND attempts > 0 AND next_attempt_at_ms > \(nowMs) AND store = ANY(\(names))
        RETURNING id
        """, logger: logger
      ).collect().count
      // A check claimed now (`check_token` set) is being made: it stays its claimer's.
      let checks = try await connection.query(
        """
        UPDATE subscriptions SET next_check_at_ms = \(nowMs)
        WHERE store = \(store.rawValue) AND failures > 0 AND next_check_at_ms > \(nowMs) AND check_token IS NULL
        RETURNING id
        """, logger: logger
      ).collect().count
      return items + checks
    }
  }
}

import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateWorker

extension SQLiteWorkerStorage {
  // MARK: Conditional apply

  /// Throws `StorageConflict` (`.chainChanged`) unless the chain is stored at
  /// `change.expectedVersion` (0: not stored). Runs inside `apply`'s transaction, which SQLite's
  /// single writer (`BEGIN IMMEDIATE`) keeps alone on the database until it commits: nobody can
  /// write the chain, or any chain or grant of its user, between this check and the commit.
  static func checkVersion(_ db: Connection, _ change: SubscriptionChange) throws {
    let s = change.subscription
    let stored =
      try db.prepare("SELECT version FROM subscriptions WHERE store = ? AND store_subscription_id = ?")
      .rows([.text(s.store.rawValue), .text(s.purchaseId)]) { $0.int64(at: 0) }.first ?? 0
    guard stored == change.expectedVersion else {
      throw StorageConflict(
        .chainChanged,
        "\(s.store.rawValue) chain \(s.store.loggable(s.purchaseId)) is at version \(stored), "
          + "not \(change.expectedVersion) as read: another write landed first; nothing was written")
    }
  }

  // MARK: Schedule

  /// Claims due checks in one write transaction: SQLite's single writer makes the select and the
  /// update one step for every other handle and process. A due row that does not decode is not
  /// claimed: its check is put off in the same transaction, and it is logged afterwards.
  public func claimDueChecks(nowMs: Int64, limit: Int, leaseMs: Int64) async throws -> [DueCheck] {
    let leaseUntilMs = nowMs + leaseMs
    let rows = try await fencedWrite { db in
      let due = try db.prepare(
        """
        SELECT \(Self.subscriptionColumns), check_claims + 1 FROM subscriptions WHERE history_json IS NOT NULL
          AND next_check_at_ms IS NOT NULL AND next_check_at_ms <= ? ORDER BY next_check_at_ms LIMIT ?
        """
      ).rows([.integer(nowMs), .integer(Int64(limit))]) { row in
        (
          store: row.string(at: 0), purchaseId: row.string(at: 1), token: row.int64(at: 19),
          decoded: Result { try Self.subscription(row) }
        )
      }
      let claim = try db.prepare(
        """
        UPDATE subscriptions SET next_check_at_ms = ?, check_claims = ?, check_token = ?
        WHERE store = ? AND store_subscription_id = ?
        """)
      let putOff = try db.prepare(
        "UPDATE subscriptions SET next_check_at_ms = ? WHERE store = ? AND store_subscription_id = ?")
      for row in due {
        if case .success = row.decoded {
          try claim.bind([
            .integer(leaseUntilMs), .integer(row.token), .integer(row.token), .text(row.store), .text(row.purchaseId),
          ])
          while try claim.step() {}
        } else {
          try putOff.bind([.integer(nowMs + Self.undecodableRetryMs), .text(row.store), .text(row.purchaseId)])
          while try putOff.step() {}
        }
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

  /// Extends the leases of `claims` still current (their token is the check's): the check is due
  /// at `untilMs`, in one write transaction.
  public func renewCheckClaims(_ claims: [CheckClaim], untilMs: Int64) async throws -> Int {
    guard !claims.isEmpty else { return 0 }
    return try await fencedWrite { db in
      var renewed = 0
      for claim in claims {
        try db.execute(
          """
          UPDATE subscriptions SET next_check_at_ms = ?
          WHERE store = ? AND store_subscription_id = ? AND check_token = ?
          """, [.integer(untilMs), .text(claim.store.rawValue), .text(claim.purchaseId), .integer(claim.claimToken)])
        renewed += db.changes
      }
      return renewed
    }
  }

  /// After a failed store call: try again at `untilMs`, ending any claim of the check; with a
  /// `claimToken`, only while that claim is still the check's (else `.claimLost`, nothing written).
  public func postponeCheck(
    store: Store, purchaseId: String, claimToken: Int64?, untilMs: Int64, failures: Int
  ) async throws {
    try await fencedWrite { db in
      var sql = """
        UPDATE subscriptions SET next_check_at_ms = ?, failures = ?, check_token = NULL
        WHERE store = ? AND store_subscription_id = ?
        """
      var arguments: [DatabaseValue] = [
        .integer(untilMs), .integer(Int64(failures)), .text(store.rawValue), .text(purchaseId),
      ]
      if let claimToken {
        sql += " AND check_token = ?"
        arguments.append(.integer(claimToken))
      }
      try db.execute(sql, arguments)
      if claimToken != nil && db.changes == 0 {
        throw StorageConflict(
          .claimLost,
          "the check of \(store.rawValue) chain \(store.loggable(purchaseId)) is no longer under this claim; "
            + "nothing was written")
      }
    }
  }
}

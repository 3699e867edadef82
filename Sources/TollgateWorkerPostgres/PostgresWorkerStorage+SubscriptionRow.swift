import PostgresNIO
import TollgateCore
import TollgateStorage
import TollgateWorker

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension PostgresWorkerStorage {
  /// The columns `subscription(_:)` reads, in its order (SQLite's `subscriptionColumns`).
  static let subscriptionColumns = """
    store, store_subscription_id, app_id, user_id, product_id, state, will_renew, expires_at_ms, access_ends_at_ms,
    verified_at_ms, history_json, evidence_json, reason, app_account_token, next_check_at_ms, failures, store_user_id,
    version, erased_at_ms
    """

  /// The columns of `subscriptionColumns`, as PostgreSQL types them.
  typealias SubscriptionColumns = (
    String, String, String, String?, String, String, Int64, Int64?, Int64?,
    Int64, String?, String?, String?, String?, Int64?, Int64, String?,
    Int64, Int64?
  )

  /// Decodes a row's first columns (`subscriptionColumns`), or throws `StoredRowError`: a history
  /// or evidence that does not decode, or a store or state this version does not know. A column
  /// of the wrong type throws `StoredRowError` too (never a missing subscription).
  static func subscription(_ row: PostgresRow) throws -> StoredSubscription {
    let cells = row.makeRandomAccess()
    let key: String
    do {
      key = "\(try cells[0].decode(String.self))/\(try cells[1].decode(String.self))"
    } catch {
      throw StoredRowError(table: "subscriptions", key: "?", problem: "store or purchase id: \(error)")
    }
    func fail(_ problem: String) -> StoredRowError {
      StoredRowError(table: "subscriptions", key: key, problem: problem)
    }
    let c: SubscriptionColumns
    do {
      c = (
        try cells[0].decode(String.self), try cells[1].decode(String.self), try cells[2].decode(String.self),
        try cells[3].decode(String?.self), try cells[4].decode(String.self), try cells[5].decode(String.self),
        try cells[6].decode(Int64.self), try cells[7].decode(Int64?.self), try cells[8].decode(Int64?.self),
        try cells[9].decode(Int64.self), try cells[10].decode(String?.self), try cells[11].decode(String?.self),
        try cells[12].decode(String?.self), try cells[13].decode(String?.self), try cells[14].decode(Int64?.self),
        try cells[15].decode(Int64.self), try cells[16].decode(String?.self), try cells[17].decode(Int64.self),
        try cells[18].decode(Int64?.self)
      )
    } catch {
      throw fail("columns: \(error)")
    }
    let history: SubscriptionHistory
    let evidence: VerificationEvidence
    do {
      history = try JSONDecoder().decode(SubscriptionHistory.self, from: Data((c.10 ?? "").utf8))
    } catch {
      throw fail("history_json: \(error)")
    }
    do {
      evidence = try JSONDecoder().decode(VerificationEvidence.self, from: Data((c.11 ?? "").utf8))
    } catch {
      throw fail("evidence_json: \(error)")
    }
    guard let store = Store(rawValue: c.0) else { throw fail("unknown store \(c.0)") }
    guard let state = SubscriptionState(rawValue: c.5) else { throw fail("unknown state \(c.5)") }
    return StoredSubscription(
      store: store, purchaseId: c.1, appId: c.2, userId: c.3, history: history, evidence: evidence, state: state,
      reason: c.12 ?? "", productId: c.4, willRenew: c.6 != 0, expiresAtMs: c.7 ?? 0, accessEndsAtMs: c.8 ?? 0,
      appAccountToken: c.13, storeUserId: c.16, verifiedAtMs: c.9, nextCheckAtMs: c.14, failures: Int(c.15),
      version: c.17, erasedAtMs: c.18)
  }
}

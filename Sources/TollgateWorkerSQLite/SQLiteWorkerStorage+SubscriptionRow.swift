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
  /// Decodes a row selected with `subscriptionColumns`, or throws `StoredRowError`: a history
  /// or evidence that does not decode, or a store or state this version does not know.
  static func subscription(_ row: Statement) throws -> StoredSubscription {
    let key = "\(row.string(at: 0))/\(row.string(at: 1))"
    func fail(_ problem: String) -> StoredRowError {
      StoredRowError(table: "subscriptions", key: key, problem: problem)
    }
    let history: SubscriptionHistory
    let evidence: VerificationEvidence
    do {
      history = try JSONDecoder().decode(SubscriptionHistory.self, from: Data(row.string(at: 10).utf8))
    } catch {
      throw fail("history_json: \(error)")
    }
    do {
      evidence = try JSONDecoder().decode(VerificationEvidence.self, from: Data(row.string(at: 11).utf8))
    } catch {
      throw fail("evidence_json: \(error)")
    }
    guard let store = Store(rawValue: row.string(at: 0)) else { throw fail("unknown store \(row.string(at: 0))") }
    guard let state = SubscriptionState(rawValue: row.string(at: 5)) else {
      throw fail("unknown state \(row.string(at: 5))")
    }
    return StoredSubscription(
      store: store, purchaseId: row.string(at: 1), appId: row.string(at: 2), userId: row.optionalString(at: 3),
      history: history, evidence: evidence, state: state, reason: row.string(at: 12), productId: row.string(at: 4),
      willRenew: row.bool(at: 6), expiresAtMs: row.int64(at: 7), accessEndsAtMs: row.int64(at: 8),
      appAccountToken: row.optionalString(at: 13), storeUserId: row.optionalString(at: 16),
      verifiedAtMs: row.int64(at: 9),
      nextCheckAtMs: row.optionalInt64(at: 14), failures: Int(row.int64(at: 15)), version: row.int64(at: 17),
      erasedAtMs: row.optionalInt64(at: 18))
  }
}

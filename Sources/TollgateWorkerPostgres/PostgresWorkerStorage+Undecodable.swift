import TollgateCore
import TollgateStorage

extension PostgresWorkerStorage {
  /// How long the check of a subscription row that does not decode is put off.
  static let undecodableRetryMs: Int64 = 3_600_000

  /// Alerts (an error log) about a due subscription row that does not decode, whose check
  /// `claimDueChecks` put off in its transaction: nothing is verified or recomputed from it until
  /// an operator repairs it.
  func reportUndecodable(store: String, purchaseId: String, _ error: any Error) {
    logger.error(
      "a stored subscription does not decode; its check is put off and the user's entitlements stay as they are",
      metadata: [
        "store.name": "\(StrangerText.loggable(store))",
        "subscription.purchase_id":
          "\(Store(rawValue: store)?.loggable(purchaseId) ?? StrangerText.loggable(purchaseId))",
        "error": "\(error)",
        "retry.in_ms": "\(Self.undecodableRetryMs)",
      ])
  }
}

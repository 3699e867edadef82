import TollgateCore

extension ChainRefresher {
  /// How many times one piece of work reads, asks and writes a chain while other writes of it
  /// keep landing first, before it gives up for now.
  static let conflictAttempts = 3

  /// Reads a purchase chain from its store and applies it (`refreshOnce`). When another write of
  /// the chain landed between the read of its version and this write (`StorageConflict`,
  /// `.chainChanged`: another worker, or another path of this one, applied a read that may be
  /// newer than ours), the chain is read and asked again, up to `conflictAttempts` times; then the
  /// conflict is thrown, and the caller retries the work later as it would after a transient
  /// failure. A conflict is never the store's trouble: it never counts toward an outage.
  @discardableResult
  func refresh(_ reference: ChainReference, claim: Claim?, completes inboxItem: InboxClaim?, reason: String)
    async throws -> Reconciler.Outcome
  {
    try await retryingConflicts(of: reference.store, reference.purchaseId ?? reference.lookupId) {
      try await refreshOnce(reference, claim: claim, completes: inboxItem, reason: reason)
    }
  }

  /// Runs `body` again while it fails with `.chainChanged`, at most `conflictAttempts` times in
  /// all; each run reads the chain afresh.
  func retryingConflicts<T: Sendable>(
    of store: Store, _ purchaseId: String, _ body: @Sendable () async throws -> T
  ) async throws -> T {
    var attempt = 1
    while true {
      do {
        return try await body()
      } catch let conflict as StorageConflict where conflict.kind == .chainChanged && attempt < Self.conflictAttempts {
        attempt += 1
        reconciler.logger.info(
          "another write of the chain landed first; reading it again",
          metadata: [
            "store.name": "\(store.rawValue)", "subscription.purchase_id": "\(store.loggable(purchaseId))",
            "attempt": "\(attempt)",
          ])
      }
    }
  }
}

import TollgateCore

/// Reads a purchase chain from its store and applies it, one verification of a chain at a time:
/// the lock spans the read and the write, so a later read is always written last. Every path
/// that changes a chain (submissions, notifications, scheduled checks) goes through here.
struct ChainRefresher: Sendable {
  let gateways: StoreGateways
  let reconciler: Reconciler
  let chains = KeyedLock()

  @discardableResult
  func refresh(_ reference: ChainReference, claimant: String?, completes inboxId: Int64?, reason: String) async throws
    -> Reconciler.Outcome
  {
    guard let gateway = gateways[reference.store] else {
      throw StoreFailure.final("\(reference.store.rawValue) purchases are not verified by this version yet")
    }
    return try await chains.withLock(reference.lockKey) {
      // The store's answer describes the chain as of the moment we asked, not the moment it
      // arrived: evaluating it at a later `now` could expire a subscription whose renewal the
      // store recorded in between (the clock can jump, or the call can be slow).
      let askedAtMs = reconciler.nowMs()
      let chain = try await gateway.fetchChain(reference)
      return try await reconciler.apply(
        chain, observedAtMs: askedAtMs, claimant: claimant, completes: inboxId, reason: reason)
    }
  }
}

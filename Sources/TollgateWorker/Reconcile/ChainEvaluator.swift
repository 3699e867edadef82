import TollgateCore

/// How the worker evaluates a chain: Core's lifecycle under the catalog's policies, with two
/// allowances for a bad day that Core cannot know about.
///
/// - **Clock skew**: a period the store says began up to `clockSkewToleranceMs` after the
///   worker's now has begun (the store's clock is ahead), so a fresh purchase is a purchase, not
///   "not started".
/// - **Store outage**: while re-verification against a store is failing (`failingStores`), an
///   auto-renewing subscription whose renewal is not confirmed keeps access past the catalog's
///   renewal leeway, up to `outageLeewayMs` after its expiry, with reason `store_unreachable`. It
///   ends only when the store answers, or at that limit. One still in its period is written with
///   access to that limit already, so nothing lapses while its check waits on the store.
struct ChainEvaluator: Sendable {
  let catalog: ProductCatalog
  let clockSkewToleranceMs: Int64
  let outageLeewayMs: Int64
  let failingStores: Set<Store>

  init(catalog: ProductCatalog, settings: WorkerSettings, failingStores: Set<Store> = []) {
    self.catalog = catalog
    self.clockSkewToleranceMs = settings.clockSkewToleranceMs
    self.outageLeewayMs = settings.storeOutageLeewayMs
    self.failingStores = failingStores
  }

  /// The moment to evaluate `history` at: `nowMs`, or the latest start of a period the store
  /// says began within the skew tolerance after it.
  func moment(of history: SubscriptionHistory, nowMs: Int64) -> Int64 {
    let ahead = history.transactions.lazy.map(\.purchaseDateMs).filter {
      $0 > nowMs && $0 - nowMs <= clockSkewToleranceMs
    }
    return ahead.max() ?? nowMs
  }

  /// When the earliest period the store says starts after `nowMs` begins, however far ahead
  /// (beyond the skew tolerance a purchase has not begun yet): the chain is checked again then.
  func nextStart(of history: SubscriptionHistory, after nowMs: Int64) -> Int64? {
    history.transactions.lazy.map(\.purchaseDateMs).filter { $0 > nowMs }.min()
  }

  /// - Parameter outage: evaluate under the outage policy even if the store is not failing now
  ///   (the chain was last written under it, and its store has not answered for it since).
  func evaluate(_ history: SubscriptionHistory, at nowMs: Int64, outage: Bool = false) -> SubscriptionEvaluation {
    let moment = moment(of: history, nowMs: nowMs)
    let evaluation = catalog.evaluate(history, at: moment)
    guard outage || failingStores.contains(history.store), outageLeewayMs > catalog.gracePolicy.renewalLeewayMs
    else { return evaluation }
    if evaluation.reason == .currentPeriod, evaluation.accessEndsAtMs > evaluation.expiresAtMs {
      // Still in its period, renewing: its access already reaches as far as the outage allows,
      // so a check that hangs (or never starts) while the store is out cannot let it lapse.
      var outage = catalog
      outage.gracePolicy.renewalLeewayMs = outageLeewayMs
      var extended = evaluation
      extended.accessEndsAtMs = max(evaluation.accessEndsAtMs, outage.evaluate(history, at: moment).accessEndsAtMs)
      return extended
    }
    guard evaluation.reason == .renewalPending || evaluation.reason == .lapsed else { return evaluation }
    // Expired with auto-renew on and no word of a cancellation, the renewal not confirmed: the
    // store would say whether it renewed, but it cannot be asked. Evaluate as if the leeway were
    // the outage's (from the first failed check on, so access never lapses in between).
    var outage = catalog
    outage.gracePolicy.renewalLeewayMs = outageLeewayMs
    var extended = outage.evaluate(history, at: moment)
    guard extended.reason == .renewalPending else { return evaluation }
    extended.reason = .storeUnreachable
    return extended
  }

  /// A user's records from all their subscriptions (each with its own verification time) and
  /// grants, evaluated by these rules at `nowMs`. A chain last written under the outage policy
  /// stays under it until its store answers for it (so an admin command in another process does
  /// not cut a subscriber off in the middle of an outage).
  func recompute(nowMs: Int64) -> EntitlementRecompute {
    { userId, subscriptions, grants in
      let verifiedAt = Dictionary(subscriptions.map { ($0.history.source, $0.verifiedAtMs) }) { a, _ in a }
      let underOutage = Set(
        subscriptions.filter { $0.reason == StateReason.storeUnreachable.rawValue }.map(\.history.source))
      let resolved = SubscriptionReplacements.resolve(subscriptions.map(\.history))
      let chains = ReplacementChains(resolved)
      let fromStores = resolved.flatMap { history in
        EntitlementMapping.records(
          userId: userId, subscription: evaluate(history, at: nowMs, outage: underOutage.contains(history.source)),
          config: catalog, verifiedAtMs: verifiedAt[history.source] ?? nowMs,
          replaces: chains.replaced(by: history.purchaseId, store: history.store))
      }
      return fromStores + grants.map { $0.entitlementRecord(verifiedAtMs: $0.grantedAtMs) }
    }
  }
}

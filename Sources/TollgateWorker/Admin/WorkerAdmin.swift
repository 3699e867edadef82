import Foundation
import TollgateCore

/// The operator's commands (`tollgate grant|revoke|reverify|explain`). They write to the same
/// database as the worker, while it and the service run; the service sees the writes through the
/// change feed like any other.
public struct WorkerAdmin: Sendable {
  let storage: any WorkerStorage
  let catalog: ProductCatalog
  let settings: WorkerSettings
  /// The deployment's clock, that every command reads (and `grant --until 30d` counts from).
  public let nowMs: @Sendable () -> Int64

  /// - Parameters:
  ///   - catalog: decides which entitlements each product gives; the worker's (see
  ///     `WorkerStorage.savedCatalog()`) unless an operator names another.
  ///   - settings: the worker's settings (its clock-skew tolerance and outage leeway decide what a
  ///     recompute grants): the same as the worker's, or a grant or revoke would recompute the
  ///     user's entitlements by other rules than the worker's.
  ///   - nowMs: the deployment's clock (the worker's and the service's): a simulator's virtual
  ///     clock where they follow one.
  public init(
    storage: any WorkerStorage, catalog: ProductCatalog, settings: WorkerSettings = WorkerSettings(),
    nowMs: @escaping @Sendable () -> Int64
  ) {
    self.storage = storage
    self.catalog = catalog
    self.settings = settings
    self.nowMs = nowMs
  }

  /// Grants `entitlement` to `userId` until `untilMs`; returns the grant id. The `granted` event
  /// carries the note and `actor`, who granted it.
  public func grant(userId: String, entitlement: String, untilMs: Int64, note: String?, actor: String? = nil)
    async throws -> Int64
  {
    try AdminError.check(userId: userId)
    guard catalog.entitlements.contains(where: { $0.id == entitlement }) else {
      throw AdminError.unknownEntitlement(entitlement, known: catalog.entitlements.map(\.id))
    }
    let now = nowMs()
    guard untilMs > now else { throw AdminError.untilNotInFuture(untilMs: untilMs, nowMs: now) }
    return try await storage.addGrant(
      userId: userId, entitlement: entitlement, expiresAtMs: untilMs, note: note, actor: actor, nowMs: now,
      recompute: ChainEvaluator(catalog: catalog, settings: settings).recompute(nowMs: now))
  }

  /// Revokes the user's open grants of `entitlement` (store purchases are untouched); returns how
  /// many. Each `grant_revoked` event carries `note` and `actor`, who revoked it.
  public func revoke(userId: String, entitlement: String, note: String? = nil, actor: String? = nil) async throws
    -> Int
  {
    try AdminError.check(userId: userId)
    let now = nowMs()
    return try await storage.revokeGrants(
      userId: userId, entitlement: entitlement, note: note, actor: actor, nowMs: now,
      recompute: ChainEvaluator(catalog: catalog, settings: settings).recompute(nowMs: now))
  }

  /// Makes the worker re-verify every subscription of `userId` now; returns how many.
  public func reverify(userId: String) async throws -> Int {
    try AdminError.check(userId: userId)
    return try await storage.requestReverify(userId: userId, nowMs: nowMs())
  }

  /// Why `userId` has (or lacks) `entitlement`.
  public func explain(userId: String, entitlement: String) async throws -> Explanation {
    try AdminError.check(userId: userId)
    let now = nowMs()
    let records = try await storage.entitlements(userId: userId).filter { $0.entitlement == entitlement }
    let subscriptions = try await storage.subscriptions(userId: userId)
    let grants = try await storage.grants(userId: userId).filter { $0.entitlement == entitlement }
    let best = records.bestEvaluation(at: now)
    let sources = records.map { record -> Explanation.Source in
      let evaluation = record.evaluated(at: now)
      let subscription = subscriptions.first { $0.history.source == record.source }
      let grant = grants.first { $0.source == record.source }
      return Explanation.Source(
        source: record.source, store: record.store.rawValue, productId: record.productId, active: evaluation.active,
        state: evaluation.state.rawValue, accessEndsAtMs: record.accessEndsAtMs, expiresAtMs: record.expiresAtMs,
        willRenew: record.willRenew, environment: record.environment.rawValue, verifiedAtMs: record.verifiedAtMs,
        rule: subscription?.reason ?? (grant != nil ? "promotional_grant" : "unknown"),
        evidenceSource: subscription?.evidence.source,
        payloads: subscription?.evidence.payloads.map {
          Explanation.Payload(kind: $0.kind, id: $0.id, sha256: $0.sha256, signedAtMs: $0.signedAtMs)
        } ?? [],
        grantNote: grant?.note, replaces: record.replaces, decides: record.source == best?.record.source,
        checksStopped: subscription?.evidence.checksStopped)
    }
    let allEvents = try await storage.events(userId: userId)
    let events = allEvents.suffix(20).map {
      Explanation.Event(
        kind: $0.kind, purchaseId: $0.purchaseId, state: $0.state?.rawValue, atMs: $0.atMs, detail: $0.detail)
    }
    var explanation = Explanation(
      userId: userId, entitlement: entitlement, evaluatedAtMs: now, active: best?.active ?? false,
      state: best?.state.rawValue, sources: sources, recentEvents: Array(events))
    explanation.transferredAway = try await transferredAway(userId: userId, events: allEvents, held: subscriptions)
    explanation.rejectedSubmissions = try await storage.rejectedSubmissions(userId: userId, limit: 10)
    return explanation
  }
}

import TollgateCore
import TollgateWorker

/// Builds a user's `Timeline` from what the worker's storage holds: the chains bound to the user
/// (`subscriptions(userId:)`), the user's events and the events of every chain they name
/// (transfers away), and the user's grants. Reads only.
public struct TimelineBuilder: Sendable {
  let storage: any WorkerStorage

  public init(storage: any WorkerStorage) {
    self.storage = storage
  }

  /// The user's timeline at `nowMs`; nil when Tollgate holds nothing of the user (no chain, no
  /// event, no grant).
  public func timeline(userId: String, nowMs: Int64) async throws -> Timeline? {
    let subscriptions = try await storage.subscriptions(userId: userId)
    let events = try await storage.events(userId: userId)
    let grants = try await storage.grants(userId: userId)
    guard !(subscriptions.isEmpty && events.isEmpty && grants.isEmpty) else { return nil }
    var chainEvents: [WorkerEvent] = []
    for chain in Self.chainsNamed(by: events, besides: subscriptions) {
      chainEvents += try await storage.events(store: chain.store, purchaseId: chain.purchaseId)
    }
    return Self.timeline(
      userId: userId, nowMs: nowMs, subscriptions: subscriptions, events: events, chainEvents: chainEvents,
      grants: grants)
  }

  /// The store chains the user's events name that are not bound to the user now (transferred
  /// away, or unbound), once each, in the order the events name them.
  static func chainsNamed(by events: [WorkerEvent], besides held: [StoredSubscription]) -> [ChainName] {
    var seen = Set(held.map { ChainName(store: $0.store, purchaseId: $0.purchaseId) })
    var chains: [ChainName] = []
    for event in events where event.store != .promotional && !event.purchaseId.isEmpty {
      let chain = ChainName(store: event.store, purchaseId: event.purchaseId)
      if seen.insert(chain).inserted { chains.append(chain) }
    }
    return chains
  }

  struct ChainName: Hashable {
    var store: Store
    var purchaseId: String
  }

  /// The timeline from what was read: every entry, sorted by time, then by source (history,
  /// event, grant, now), then in the order it was made.
  public static func timeline(
    userId: String, nowMs: Int64, subscriptions: [StoredSubscription], events: [WorkerEvent],
    chainEvents: [WorkerEvent] = [], grants: [PromotionalGrant]
  ) -> Timeline {
    var entries: [Timeline.Entry] = []
    for subscription in subscriptions {
      entries += historyEntries(subscription, replacements: subscriptions)
    }
    entries += eventEntries(userId: userId, events: events, chainEvents: chainEvents)
    entries += grantEntries(grants, nowMs: nowMs)
    for subscription in subscriptions {
      entries.append(nowEntry(subscription, nowMs: nowMs))
    }
    annotateProductChanges(&entries, events: events + chainEvents)
    let sorted = entries.enumerated().sorted { left, right in
      (left.element.atMs, left.element.source, left.offset) < (right.element.atMs, right.element.source, right.offset)
    }
    return Timeline(userId: userId, evaluatedAtMs: nowMs, entries: sorted.map(\.element))
  }

  /// A chain's periods (trial, intro offer, period), product changes between them, refunds and
  /// revocations, and its replacement by another purchase, each with the signing time of the
  /// payload behind it where the store signed one.
  static func historyEntries(_ subscription: StoredSubscription, replacements: [StoredSubscription])
    -> [Timeline.Entry]
  {
    let history = subscription.history
    var signedAt: [String: Int64] = [:]
    for payload in subscription.evidence.payloads {
      guard let signed = payload.signedAtMs else { continue }
      signedAt[payload.id] = max(signed, signedAt[payload.id] ?? signed)
    }
    func entry(_ kind: Timeline.Kind, at atMs: Int64, _ transaction: StoreTransaction?, detail: String? = nil)
      -> Timeline.Entry
    {
      Timeline.Entry(
        atMs: atMs, kind: kind, store: subscription.store, purchaseId: subscription.purchaseId,
        productId: transaction?.productId, transactionId: transaction?.transactionId,
        signedAtMs: transaction.flatMap { signedAt[$0.transactionId] }, detail: detail, source: .history)
    }
    var entries: [Timeline.Entry] = []
    var previousProduct: String?
    let periods = history.transactions.sorted {
      ($0.purchaseDateMs, $0.transactionId) < ($1.purchaseDateMs, $1.transactionId)
    }
    for transaction in periods {
      if let previous = previousProduct, previous != transaction.productId {
        entries.append(
          entry(.productChanged, at: transaction.purchaseDateMs, transaction, detail: "from \(previous)"))
      }
      previousProduct = transaction.productId
      let kind: Timeline.Kind =
        transaction.isFreeTrial ? .trial : transaction.offerType == .introductory ? .introOffer : .period
      var period = entry(kind, at: transaction.purchaseDateMs, transaction, detail: periodDetail(transaction))
      period.untilMs = transaction.expiresDateMs == Int64.max ? nil : transaction.expiresDateMs
      entries.append(period)
      if let revokedAtMs = transaction.revocationDateMs {
        let reason = transaction.revocationReason
        entries.append(
          entry(reason == .refunded ? .refunded : .revoked, at: revokedAtMs, transaction, detail: reason?.rawValue))
      }
    }
    if let replacedAtMs = history.replacedAtMs {
      let successor = replacements.first { $0.history.linkedPurchaseToken == subscription.purchaseId }
      var replaced = entry(
        .replacedBy, at: replacedAtMs, nil,
        detail: successor.map { "replaced by \($0.purchaseId) (\($0.productId))" } ?? "replaced by another purchase")
      replaced.linkedPurchaseId = successor?.purchaseId
      entries.append(replaced)
    }
    return entries
  }

  /// What a period's offer and ownership were, when not a plain purchase at the regular price.
  private static func periodDetail(_ transaction: StoreTransaction) -> String? {
    var parts: [String] = []
    if let offer = transaction.offerType, offer != .introductory { parts.append("offer \(offer.rawValue)") }
    if transaction.ownershipType == .familyShared { parts.append("family shared") }
    if transaction.isUpgraded { parts.append("upgraded") }
    return parts.isEmpty ? nil : parts.joined(separator: "; ")
  }

  /// Where the chain stands as last evaluated: its state until access ends, the rule that decided
  /// it and what the store says of the next renewal (grace, billing retry, hold, pause, will renew).
  static func nowEntry(_ subscription: StoredSubscription, nowMs: Int64) -> Timeline.Entry {
    var parts = ["rule \(subscription.reason)", subscription.willRenew ? "will renew" : "will not renew"]
    if let renewal = subscription.history.renewalInfo {
      if let product = renewal.autoRenewProductId, product != subscription.productId {
        parts.append("renews into \(product)")
      }
      if let grace = renewal.gracePeriodExpiresDateMs {
        parts.append("grace period until \(ISO8601Text.text(ms: grace))")
      }
      if renewal.isInBillingRetryPeriod { parts.append("in billing retry") }
      switch renewal.googlePlayState {
      case .onHold?: parts.append("on hold")
      case .paused?:
        parts.append("paused" + (renewal.autoResumeTimeMs.map { " until \(ISO8601Text.text(ms: $0))" } ?? ""))
      default: break
      }
      if let intent = renewal.expirationIntent { parts.append("expiration intent \(intent.rawValue)") }
    }
    if let stopped = subscription.evidence.checksStopped {
      parts.append("checks stopped at \(ISO8601Text.text(ms: stopped.atMs)): \(stopped.reason)")
    }
    return Timeline.Entry(
      atMs: nowMs, untilMs: subscription.accessEndsAtMs == Int64.max ? nil : subscription.accessEndsAtMs, kind: .now,
      store: subscription.store, purchaseId: subscription.purchaseId, productId: subscription.productId,
      signedAtMs: subscription.evidence.newestSignedAtMs, state: subscription.state,
      detail: parts.joined(separator: "; "), source: .now)
  }
}

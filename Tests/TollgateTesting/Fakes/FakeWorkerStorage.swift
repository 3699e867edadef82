import Foundation
import TollgateCore
import TollgateWorker

/// `WorkerStorage` in memory, for the unit tests of the worker and of what runs on its seam
/// (`TollgateSupport`): the same contract as SQLite (leases,
/// dedupe, one change applied at once), plus ways to look inside.
package actor FakeWorkerStorage: WorkerStorage {
  package struct Item: Sendable {
    package var item: InboxItem
    package var status: SubmissionState
    package var nextAttemptAtMs: Int64
    package var leaseUntilMs: Int64?
    package var dedupeKey: String?
    package var outcome: String?
    package var lastError: String?
  }

  package var items: [Int64: Item] = [:]
  package var subscriptionsByChain: [String: StoredSubscription] = [:]
  package var entitlementsByUser: [String: [EntitlementRecord]] = [:]
  package private(set) var transactions: [TransactionRow] = []
  /// The chain (its `key`) each stored transaction belongs to, by `key(store, transactionId)`.
  package var transactionChains: [String: String] = [:]
  package var storedEvents: [StoredEvent] = []
  package var grantsById: [Int64: PromotionalGrant] = [:]
  package private(set) var cursors: [String: Int64] = [:]
  /// Failed attempts and parked events per endpoint (`FakeWorkerStorage+Webhooks`).
  package var webhookBook = FakeWebhookBook()
  /// Job leases by name, and how many prunes were written (`FakeWorkerStorage+JobLeases`).
  package var jobLeaseBook = FakeJobLeaseBook()
  /// Failing stores and injected faults (`FakeWorkerStorage+StoreHealth`).
  package var storeHealthBook = FakeStoreHealthBook()
  /// The store-call budget windows every handle shares (`reserveStoreCalls`).
  package var storeCallWindows: [Store: StoreCallWindow] = [:]
  /// Claims of scheduled checks, and applies held on purpose (`FakeWorkerStorage+Checks`).
  package var checkBook = FakeCheckBook()
  package private(set) var catalog: ProductCatalog?
  private var nextId: Int64 = 1
  /// The last fencing token a claim handed out (`claimInbox`): every claim takes the next.
  private var lastClaimToken: Int64 = 0

  package init() {}

  package static func key(_ store: Store, _ purchaseId: String) -> String { "\(store.rawValue):\(purchaseId)" }

  private func newId() -> Int64 {
    defer { nextId += 1 }
    return nextId
  }

  // MARK: Looking inside

  /// Puts a submitted purchase in the inbox, as the service does.
  package func enqueue(_ submission: PurchaseSubmission, nowMs: Int64) throws -> Int64 {
    let id = newId()
    let payload = Array(try JSONEncoder().encode(submission))
    items[id] = Item(
      item: InboxItem(
        id: id, kind: .purchase, store: submission.store.rawValue, userId: submission.userId, payload: payload,
        attempts: 0,
        receivedAtMs: nowMs, requestId: submission.requestId), status: .pending, nextAttemptAtMs: nowMs)
    return id
  }

  package func item(_ id: Int64) -> Item? { items[id] }

  /// Seeds a stored subscription (as an earlier verification left it).
  package func seed(_ subscription: StoredSubscription) {
    var stored = subscription
    stored.version = max(1, subscription.version)
    subscriptionsByChain[Self.key(subscription.store, subscription.purchaseId)] = stored
  }

  package func allSubscriptions() -> [StoredSubscription] { Array(subscriptionsByChain.values) }

  // MARK: Inbox

  package func storeNotification(
    route: String, dedupeKey: String, payload: [UInt8], requestId: String?, nowMs: Int64
  ) -> (id: Int64, duplicate: Bool) {
    if let existing = items.values.first(where: { $0.dedupeKey == dedupeKey }) { return (existing.item.id, true) }
    let id = newId()
    items[id] = Item(
      item: InboxItem(
        id: id, kind: .notification, store: route, userId: nil, payload: payload, attempts: 0, receivedAtMs: nowMs,
        requestId: requestId),
      status: .pending, nextAttemptAtMs: nowMs, dedupeKey: dedupeKey)
    return (id, false)
  }

  package func claimInbox(nowMs: Int64, limit: Int, leaseMs: Int64, excluding: Set<Int64> = []) -> [InboxItem] {
    let due = items.values.filter {
      !excluding.contains($0.item.id)
        && (($0.status == .pending && $0.nextAttemptAtMs <= nowMs)
          || ($0.status == .processing && ($0.leaseUntilMs ?? 0) <= nowMs))
    }.sorted { ($0.nextAttemptAtMs, $0.item.id) < ($1.nextAttemptAtMs, $1.item.id) }.prefix(limit)
    return due.map { entry in
      lastClaimToken += 1
      var claimed = entry.item
      claimed.claimToken = lastClaimToken
      items[claimed.id]?.status = .processing
      items[claimed.id]?.leaseUntilMs = nowMs + leaseMs
      items[claimed.id]?.item.attempts += 1
      items[claimed.id]?.item.claimToken = lastClaimToken
      return claimed
    }
  }

  package func renewInboxClaims(_ claims: [InboxClaim], untilMs: Int64) -> Int {
    var renewed = 0
    for claim in claims {
      guard let entry = items[claim.id], entry.status == .processing, entry.item.claimToken == claim.claimToken
      else { continue }
      items[claim.id]?.leaseUntilMs = untilMs
      renewed += 1
    }
    return renewed
  }

  package func retryInbox(id: Int64, claimToken: Int64, atMs: Int64, error: String) throws {
    try checkClaim(id: id, claimToken: claimToken, doing: "retried")
    items[id]?.status = .pending
    items[id]?.nextAttemptAtMs = atMs
    items[id]?.leaseUntilMs = nil
    items[id]?.lastError = error
    items[id]?.item.claimToken = 0
  }

  package func finishInbox(id: Int64, claimToken: Int64, state: SubmissionState, outcome: String, nowMs: Int64) throws {
    try checkClaim(id: id, claimToken: claimToken, doing: "finished")
    items[id]?.status = state
    items[id]?.outcome = outcome
    items[id]?.leaseUntilMs = nil
    items[id]?.item.claimToken = 0
  }

  /// Throws `.claimLost` unless `claimToken` is the current claim of item `id`, still processing.
  private func checkClaim(id: Int64, claimToken: Int64, doing: String) throws {
    guard let entry = items[id], entry.status == .processing, entry.item.claimToken == claimToken else {
      throw StorageConflict(.claimLost, "inbox item \(id) was not \(doing) under this claim")
    }
  }

  package func inboxCounts() -> [String: Int] {
    Dictionary(grouping: items.values, by: \.status.rawValue).mapValues(\.count)
  }

  package func oldestUnfinishedInboxItemAtMs() -> Int64? {
    items.values.filter { $0.status == .pending || $0.status == .processing }.map(\.item.receivedAtMs).min()
  }

  // MARK: Subscriptions

  package func subscription(store: Store, purchaseId: String) -> StoredSubscription? {
    subscriptionsByChain[Self.key(store, purchaseId)]
  }

  package func subscriptions(userId: String) -> [StoredSubscription] {
    subscriptionsByChain.values.filter { $0.userId == userId }.sorted { $0.purchaseId < $1.purchaseId }
  }

  package func user(store: Store, storeUserId: String) -> String? {
    subscriptionsByChain.values.filter { $0.store == store && $0.storeUserId == storeUserId && $0.userId != nil }
      .max { $0.verifiedAtMs < $1.verifiedAtMs }?.userId
  }

  /// Checks and writes with no suspension point in between (a held apply waits before both): the
  /// actor runs one at a time, so a user's recompute is serialised against every other write of
  /// their subscriptions and grants, as the contract asks.
  @discardableResult
  package func apply(_ change: SubscriptionChange, recompute: @escaping EntitlementRecompute) async throws
    -> RecordChanges
  {
    let key = Self.key(change.subscription.store, change.subscription.purchaseId)
    if let hold = checkBook.holds.removeValue(forKey: change.subscription.purchaseId) { await hold.arrive() }
    let stored = subscriptionsByChain[key]?.version ?? 0
    guard stored == change.expectedVersion else {
      throw StorageConflict(
        .chainChanged, "chain \(change.subscription.purchaseId) is at version \(stored), not \(change.expectedVersion)")
    }
    if let completes = change.completes {
      try checkClaim(id: completes.id, claimToken: completes.claimToken, doing: "finished")
    }
    var written = change.subscription
    written.version = change.expectedVersion + 1
    subscriptionsByChain[key] = written
    checkBook.tokens[key] = nil
    transactions += change.transactions
    for row in change.transactions {
      transactionChains[Self.key(change.subscription.store, row.storeTransactionId)] = key
    }
    var changes: RecordChanges = [:]
    for userId in Set([change.subscription.userId, change.alsoRecompute].compactMap { $0 }) {
      changes[userId] = recomputeUser(userId, recompute: recompute)
    }
    for event in change.events { storedEvents.append(StoredEvent(id: newId(), event: event)) }
    if let completes = change.completes {
      try finishInbox(
        id: completes.id, claimToken: completes.claimToken, state: completes.state, outcome: completes.outcome,
        nowMs: change.nowMs)
    }
    return changes
  }

  private func recomputeUser(_ userId: String, recompute: EntitlementRecompute)
    -> (before: [EntitlementRecord], after: [EntitlementRecord])
  {
    let before = entitlementsByUser[userId] ?? []
    let after = recompute(userId, subscriptions(userId: userId), grantsById.values.filter { $0.userId == userId })
    entitlementsByUser[userId] = after.isEmpty ? nil : after
    return (before, after)
  }

  package func entitlements(userId: String) -> [EntitlementRecord] { entitlementsByUser[userId] ?? [] }

  // MARK: Schedule

  package func claimDueChecks(nowMs: Int64, limit: Int, leaseMs: Int64) -> [DueCheck] {
    let due = subscriptionsByChain.filter { ($0.value.nextCheckAtMs ?? .max) <= nowMs }
      .sorted { ($0.value.nextCheckAtMs ?? 0, $0.key) < ($1.value.nextCheckAtMs ?? 0, $1.key) }.prefix(limit)
    return due.map { key, subscription in
      checkBook.lastToken += 1
      checkBook.tokens[key] = checkBook.lastToken
      var claimed = subscription
      claimed.nextCheckAtMs = nowMs + leaseMs
      subscriptionsByChain[key] = claimed
      return DueCheck(subscription: claimed, claimToken: checkBook.lastToken)
    }
  }

  package func renewCheckClaims(_ claims: [CheckClaim], untilMs: Int64) -> Int {
    var renewed = 0
    for claim in claims {
      let key = Self.key(claim.store, claim.purchaseId)
      guard checkBook.tokens[key] == claim.claimToken, subscriptionsByChain[key] != nil else { continue }
      subscriptionsByChain[key]?.nextCheckAtMs = untilMs
      renewed += 1
    }
    return renewed
  }

  package func postponeCheck(store: Store, purchaseId: String, claimToken: Int64?, untilMs: Int64, failures: Int) throws
  {
    let key = Self.key(store, purchaseId)
    if let claimToken, checkBook.tokens[key] != claimToken {
      throw StorageConflict(.claimLost, "the check of chain \(purchaseId) is no longer under claim \(claimToken)")
    }
    checkBook.tokens[key] = nil
    subscriptionsByChain[key]?.nextCheckAtMs = untilMs
    subscriptionsByChain[key]?.failures = failures
  }

  package func expediteRetries(store: Store, routes: [String], nowMs: Int64) -> Int {
    let names = Set([store.rawValue] + routes)
    let itemIds = items.filter {
      $0.value.status == .pending && $0.value.item.attempts > 0 && $0.value.nextAttemptAtMs > nowMs
        && names.contains($0.value.item.store)
    }.map(\.key)
    for id in itemIds { items[id]?.nextAttemptAtMs = nowMs }
    let keys = subscriptionsByChain.filter {
      $0.value.store == store && $0.value.failures > 0 && ($0.value.nextCheckAtMs ?? 0) > nowMs
        && checkBook.tokens[$0.key] == nil
    }.map(\.key)
    for key in keys { subscriptionsByChain[key]?.nextCheckAtMs = nowMs }
    return itemIds.count + keys.count
  }

  package func requestReverify(userId: String, nowMs: Int64) -> Int {
    let keys = subscriptionsByChain.filter { $0.value.userId == userId }.map(\.key)
    for key in keys { subscriptionsByChain[key]?.nextCheckAtMs = nowMs }
    return keys.count
  }

  // MARK: Grants

  package func grants(userId: String) -> [PromotionalGrant] {
    grantsById.sorted { $0.key < $1.key }.map(\.value).filter { $0.userId == userId }
  }

  package func addGrant(
    userId: String, entitlement: String, expiresAtMs: Int64, note: String?, actor: String?, nowMs: Int64,
    recompute: @escaping EntitlementRecompute
  ) -> Int64 {
    let id = newId()
    grantsById[id] = PromotionalGrant(
      grantId: String(id), userId: userId, entitlement: entitlement, grantedAtMs: nowMs, expiresAtMs: expiresAtMs,
      note: note)
    _ = recomputeUser(userId, recompute: recompute)
    let event = GrantEvents.granted(
      grantId: id, userId: userId, entitlement: entitlement, expiresAtMs: expiresAtMs, note: note, actor: actor,
      nowMs: nowMs)
    storedEvents.append(StoredEvent(id: newId(), event: event))
    return id
  }

  package func revokeGrants(
    userId: String, entitlement: String, note: String?, actor: String?, nowMs: Int64,
    recompute: @escaping EntitlementRecompute
  ) -> Int {
    let ids = grantsById.filter {
      $0.value.userId == userId && $0.value.entitlement == entitlement && $0.value.revokedAtMs == nil
    }
    .map(\.key).sorted()
    for id in ids { grantsById[id]?.revokedAtMs = nowMs }
    _ = recomputeUser(userId, recompute: recompute)
    for id in ids {
      let event = GrantEvents.revoked(
        grantId: id, userId: userId, entitlement: entitlement, expiresAtMs: grantsById[id]?.expiresAtMs, note: note,
        actor: actor, nowMs: nowMs)
      storedEvents.append(StoredEvent(id: newId(), event: event))
    }
    return ids.count
  }

  // MARK: Events and webhooks

  package func events(userId: String) -> [WorkerEvent] { storedEvents.map(\.event).filter { $0.userId == userId } }

  package func events(after id: Int64, limit: Int) -> [StoredEvent] {
    Array(storedEvents.filter { $0.id > id }.prefix(limit))
  }

  package func webhookCursor(endpoint: String, nowMs: Int64) -> Int64 {
    if let cursor = cursors[endpoint] { return cursor }
    let newest = storedEvents.last?.id ?? 0
    cursors[endpoint] = newest
    return newest
  }

  package func advanceWebhookCursor(endpoint: String, to eventId: Int64, nowMs: Int64) {
    cursors[endpoint] = max(cursors[endpoint] ?? 0, eventId)
  }

  // MARK: Housekeeping

  /// Finished inbox items and old events go; the fake keeps no change feed.
  package func prune(_ plan: PrunePlan) throws -> PruneCounts {
    try checkJobLease(plan.lease)
    jobLeaseBook.prunes += 1
    let finished = items.filter { $0.value.status != .pending && $0.value.status != .processing }
      .filter { $0.value.item.receivedAtMs < plan.finishedInboxBeforeMs }.map(\.key)
    for id in finished { items.removeValue(forKey: id) }
    let before = storedEvents.count
    // A parked event (or one queued for redelivery) stays until it is delivered, as in SQLite.
    let parked = Set(webhookBook.parked.values.flatMap(\.keys))
    storedEvents.removeAll { stored in
      stored.event.atMs < plan.eventsBeforeMs && stored.id <= (plan.eventsDeliveredThroughId ?? .max)
        && !parked.contains(stored.id)
    }
    return PruneCounts(inbox: finished.count, events: before - storedEvents.count)
  }

  // MARK: Catalog

  package func saveCatalog(_ catalog: ProductCatalog, nowMs: Int64) { self.catalog = catalog }

  package func savedCatalog() -> ProductCatalog? { catalog }
}

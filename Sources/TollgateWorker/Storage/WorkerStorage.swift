import TollgateCore

/// What the worker keeps, and needs kept atomically: the durable inbox, subscriptions with their
/// verified histories and transactions, the schedule of re-verifications, grants, outbound events
/// with the webhooks' cursors, and the active product catalog. The worker owns this seam; SQLite
/// implements it now (`TollgateWorkerSQLite`), PostgreSQL next, and the unit tests fake it.
///
/// Storage never calls into the worker: where entitlements must be recomputed inside the write
/// of a change, the worker hands over an `EntitlementRecompute` that an implementation runs inside
/// its transaction.
///
/// **Fencing (one writer per database).** Once `takeWorkerLease` succeeded on a storage value,
/// every write through it except `storeNotification` (claims, `apply`, inbox finish and retry,
/// postponed checks, grants, webhook cursors, pruning, the catalog, and any write added later)
/// checks, inside its own transaction, that the lease row still names that holder's `ownerId`
/// and the `generation` the take gave it. When it does not (another worker took the lease over
/// while this one was paused past its heartbeat: SIGSTOP, a VM stall), the write changes nothing
/// and throws `WorkerLeaseError` with code `.lost`; the worker stops processing and steps down.
/// A check before the transaction is not enough: the pause can fall between the check and the
/// commit. Each take of the lease increments `generation`, and hands the previous holder's
/// claimed inbox items back (pending, due at once, their claims ended): that holder can no longer
/// write, so they need not wait out their lease. A storage that never took the lease (the admin commands) writes
/// unfenced. Storing a notification stays unfenced: it only adds to the inbox, deduplicated; so
/// do the store-health records ("Store health" below).
public protocol WorkerStorage: Sendable {
  // MARK: Inbox

  /// Stores a notification durably, with the id of the request that brought it (`RequestID`,
  /// `InboxItem.requestId`). A second one with the same `dedupeKey` is not stored again (the
  /// first one's request id stays).
  func storeNotification(route: String, dedupeKey: String, payload: [UInt8], requestId: String?, nowMs: Int64)
    async throws -> (id: Int64, duplicate: Bool)

  /// Claims up to `limit` due items (pending and due, or processing with an expired lease: a
  /// worker that died mid-item), leasing them for `leaseMs` and counting the attempt.
  ///
  /// **Claims are fenced.** Each claimed item comes with a new `claimToken` (nonzero, never the
  /// token of an earlier claim of that item), which replaces the previous claim's. The claim is
  /// atomic with several workers on one database: an item is held by at most one live claim,
  /// and two concurrent calls never both return it while its lease runs (each item is taken by
  /// a write that is itself conditional on the item still being claimable).
  ///
  /// Items in `excluding` are not claimed even when their lease has ended: the caller is still
  /// processing them under its own claim (a worker never takes its own running items over).
  func claimInbox(nowMs: Int64, limit: Int, leaseMs: Int64, excluding: Set<Int64>) async throws -> [InboxItem]

  /// Extends the leases of `claims` (items the caller is still processing) to `untilMs`, each
  /// only while it is still its item's current claim, and returns how many it extended. A worker
  /// renews the claims of its running items well within their lease (`VerifierWorker.loop`), so
  /// an item that waits its turn there (a store call permit, its chain's lock) is never taken
  /// over by another worker and read from the store twice; a worker that stops renewing (killed,
  /// hung) loses its items to the others once their leases end.
  func renewInboxClaims(_ claims: [InboxClaim], untilMs: Int64) async throws -> Int

  /// Puts an item back to be tried again at `atMs` (store trouble), ending its claim; nothing
  /// else changes. Throws `StorageConflict` (`.claimLost`) and writes nothing when the item's
  /// current claim is not `claimToken` (its lease ran out and another claim took it, or the
  /// claim already ended).
  func retryInbox(id: Int64, claimToken: Int64, atMs: Int64, error: String) async throws

  /// Ends an item without a subscription change (rejected, a TEST notification, …). Throws
  /// `StorageConflict` (`.claimLost`) and writes nothing when the item's current claim is not
  /// `claimToken`: whoever holds the newer claim finishes it.
  func finishInbox(id: Int64, claimToken: Int64, state: SubmissionState, outcome: String, nowMs: Int64) async throws

  /// Counts of inbox items by status (for /health and metrics).
  func inboxCounts() async throws -> [String: Int]

  /// When the oldest item not finished yet (pending or processing) was received; nil when there
  /// is none (`tollgate_inbox_oldest_age_seconds`).
  func oldestUnfinishedInboxItemAtMs() async throws -> Int64?

  /// The user's submitted purchases that were rejected, newest first, at most `limit` (`explain`).
  func rejectedSubmissions(userId: String, limit: Int) async throws -> [RejectedSubmission]

  // MARK: Subscriptions

  /// The chain as stored, with its `version` (every read of a subscription fills it in).
  func subscription(store: Store, purchaseId: String) async throws -> StoredSubscription?

  func subscriptions(userId: String) async throws -> [StoredSubscription]

  /// The user bound to any chain of `store` whose buyer is `storeUserId` (the Amazon user id),
  /// nil when none is; the one bound most recently when several are.
  func user(store: Store, storeUserId: String) async throws -> String?

  /// Writes one verification atomically: the subscription (and its binding to a user), its
  /// transactions, events, the entitlements of every affected user recomputed by `recompute`
  /// with their change-feed entries, and the completion of the inbox item that caused it.
  /// When `change.completes` names a claim that is no longer the item's current one, throws
  /// `StorageConflict` (`.claimLost`) and writes nothing at all: the whole transaction rolls back.
  ///
  /// **Conditional on the version read.** Inside its transaction, `apply` checks that the
  /// chain's stored `version` (0 when it is not stored) is still `change.expectedVersion`, the
  /// version the change was computed from; otherwise it throws `StorageConflict`
  /// (`.chainChanged`) and writes nothing: another writer (another worker, or another path of
  /// this one) applied a newer read in between. The write stores `expectedVersion + 1`. Nothing
  /// else makes an older read lose to a newer one: an in-process lock (`KeyedLock`) only makes
  /// conflicts rarer. `apply` also ends any claim of the chain's scheduled check
  /// (`claimDueChecks`): the change carries its next check.
  ///
  /// **Recompute is serialised per user.** `recompute` runs on the user's subscriptions and
  /// grants as committed, and no other write of that user's subscriptions or grants (`apply` of
  /// another chain, `addGrant`, `revokeGrants`, from any handle or process) may commit between
  /// that read and this write: two chains of one user written at once both end up in the user's
  /// entitlements. SQLite keeps this with its single writer (`BEGIN IMMEDIATE`: one write
  /// transaction at a time on the database); a server database must lock the user (a row lock
  /// on the user taken first in each of these writes, or serializable isolation retried).
  @discardableResult
  func apply(_ change: SubscriptionChange, recompute: @escaping EntitlementRecompute) async throws -> RecordChanges

  /// The user's entitlement records as last written (for `tollgate explain`).
  func entitlements(userId: String) async throws -> [EntitlementRecord]

  // MARK: Schedule

  /// Claims up to `limit` scheduled checks due at `nowMs`, oldest due first, each for `leaseMs`:
  /// atomically with every other claimer of the database (any handle, any process), a claimed
  /// check is due to nobody else until its lease ends (its `next_check_at_ms` moves to
  /// `nowMs + leaseMs` together with a new claim token, in one write). A claim ends with the
  /// chain's next `apply` (by anyone) or a `postponeCheck` under its token; a claim whose worker
  /// died is due again once its lease ended. A due row that does not decode is not handed out:
  /// it is logged as an error and its check put off, so it neither stops everyone else's checks
  /// nor changes anything.
  func claimDueChecks(nowMs: Int64, limit: Int, leaseMs: Int64) async throws -> [DueCheck]

  /// Extends the leases of `claims` (checks the caller is still making, or has claimed again to
  /// make next) to `untilMs`: each check is due to nobody else until then, only while the claim
  /// is still the check's current one (no `apply` or `postponeCheck` ended it, no other claim
  /// replaced it); returns how many it extended. The worker renews its checks' claims together
  /// with its inbox items' (`renewInboxClaims`, `VerifierWorker.loop`), so a check that waits its
  /// turn there (a store call permit, its chain's lock) is never claimed by another worker and
  /// its chain read from the store twice; a worker that stops renewing loses its checks to the
  /// others once their leases end.
  func renewCheckClaims(_ claims: [CheckClaim], untilMs: Int64) async throws -> Int

  /// After a failed store call: try again at `untilMs`, with `failures` in a row; the verified
  /// state (and `version`) stays as it is, and any claim of the check ends. `claimToken` is the
  /// token of the claim the check was made under (`DueCheck.claimToken`), nil for a postponement
  /// that no claim made (`Reconciler.readSoon`, an acknowledgement's retry). Throws
  /// `StorageConflict` (`.claimLost`) and writes nothing when `claimToken` is not the check's
  /// current claim any more (its lease ended and another claim took it, or an `apply` ended it).
  func postponeCheck(store: Store, purchaseId: String, claimToken: Int64?, untilMs: Int64, failures: Int)
    async throws

  /// After an outage of `store` ends: its pending inbox items that failed before (purchases of
  /// the store, notifications of its `routes`) and its postponed checks become due at `nowMs`;
  /// returns how many.
  func expediteRetries(store: Store, routes: [String], nowMs: Int64) async throws -> Int

  /// Makes every subscription of `userId` due now; returns how many.
  func requestReverify(userId: String, nowMs: Int64) async throws -> Int

  // MARK: Grants

  func grants(userId: String) async throws -> [PromotionalGrant]

  /// Adds a grant, recomputes the user's entitlements and writes its `granted` event (with the
  /// note and `actor`, who granted it: `GrantEvents`) in the same transaction; returns its id.
  /// The recompute is serialised per user like `apply`'s.
  func addGrant(
    userId: String, entitlement: String, expiresAtMs: Int64, note: String?, actor: String?, nowMs: Int64,
    recompute: @escaping EntitlementRecompute
  ) async throws -> Int64

  /// Revokes the user's open grants of `entitlement`, recomputing and writing a `grant_revoked`
  /// event per grant (with `note` and `actor`) in the same transaction; returns how many. The
  /// recompute is serialised per user like `apply`'s.
  func revokeGrants(
    userId: String, entitlement: String, note: String?, actor: String?, nowMs: Int64,
    recompute: @escaping EntitlementRecompute
  ) async throws -> Int

  // MARK: Events and webhooks

  /// The user's events, oldest first.
  func events(userId: String) async throws -> [WorkerEvent]

  /// Events after `id`, oldest first, at most `limit`.
  ///
  /// **Ids are handed out in commit order.** An event's id is assigned inside the transaction
  /// that writes it, and the appends of every writer (any handle, any process) are serialised,
  /// so ids grow in the order events become visible: a reader that has read up to `id` never
  /// later sees a new event at or below it, and following `events(after:)` from its last
  /// position (the webhook dispatcher does) sees every event once, in order. An id is never
  /// handed out again, also after its event was pruned. SQLite keeps this with its single writer
  /// (`BEGIN IMMEDIATE`) and a prune that keeps the newest event; a server database takes a
  /// transaction-scoped lock before its first append, or its readers stop below the oldest id
  /// of a transaction still open (docs/storage.md, "Feed and event order").
  func events(after id: Int64, limit: Int) async throws -> [StoredEvent]

  /// The last event an endpoint acknowledged; a new endpoint starts after the newest event, so it
  /// receives what happens from now on rather than the whole history.
  func webhookCursor(endpoint: String, nowMs: Int64) async throws -> Int64

  /// Moves `endpoint`'s cursor up to `eventId` (never back). Fenced by `lease`, the delivery's
  /// job lease (`JobLease.webhook`), when given: throws `StorageConflict` (`.leaseLost`) and
  /// writes nothing when it is no longer held so. Likewise `recordWebhookFailure` and
  /// `finishWebhookRedelivery`.
  func advanceWebhookCursor(endpoint: String, to eventId: Int64, nowMs: Int64, lease: JobLease?) async throws

  /// Counts a failed delivery of `eventId`, the event after `endpoint`'s cursor (the count starts
  /// again when another event fails). Once `limit` is reached the event is parked and the cursor
  /// moved past it, in the same transaction.
  func recordWebhookFailure(
    endpoint: String, eventId: Int64, error: String, limit: WebhookRetryLimit, nowMs: Int64, lease: JobLease?
  ) async throws -> WebhookFailureRecord

  /// Parked events of `endpoint` (of every endpoint when nil), oldest event first.
  func parkedWebhookEvents(endpoint: String?) async throws -> [ParkedWebhookEvent]

  /// Queues parked events for delivery again, attempts counted afresh: those of `eventIds` (every
  /// one when nil) parked for `endpoint` (for any endpoint when nil). Returns how many.
  func requestWebhookRedelivery(eventIds: [Int64]?, endpoint: String?) async throws -> Int

  /// Up to `limit` of `endpoint`'s queued redeliveries due at `nowMs`, oldest event first.
  func dueWebhookRedeliveries(endpoint: String, nowMs: Int64, limit: Int) async throws -> [ParkedWebhookEvent]

  /// After a redelivery: delivered (`error` nil) it is gone; failed, it is tried again at
  /// `retryAtMs`, or parked again once `limit` is reached.
  func finishWebhookRedelivery(
    endpoint: String, eventId: Int64, error: String?, limit: WebhookRetryLimit, retryAtMs: Int64, nowMs: Int64,
    lease: JobLease?
  ) async throws

  /// What `endpoint` has not received: events after its cursor of `kinds` (all when nil) bound to
  /// a user, its queued redeliveries, and its parked events.
  func webhookBacklog(endpoint: String, kinds: [String]?) async throws -> WebhookBacklog

  /// The user's newest `limit` events, newest first, each with its delivery to every endpoint
  /// that has a cursor (`EventDeliveries.combine` over the cursors and the parked events of those
  /// events, read at one point in time), for the support console. Reads only.
  func webhookDeliveries(userId: String, limit: Int) async throws -> [EventDeliveries]

  /// Why writes cannot be trusted now (the database file was deleted or replaced after it was
  /// opened: what is written there is lost), in a sentence for Health; nil when all is well.
  func storageProblem() async -> String?

  // MARK: Worker lease (one worker per database)

  /// The current holder of the worker lease, nil when none.
  func workerLease() async throws -> WorkerLeaseHolder?

  /// Takes the lease for `holder` if it is still held by `previousOwnerId` (nil: held by nobody);
  /// false when another worker got there first. Atomic. On success it increments the lease's
  /// `generation`, makes the previous holder's claimed inbox items pending again, and fences
  /// every later write through this storage by the lease ("Fencing" above).
  func takeWorkerLease(_ holder: WorkerLeaseHolder, replacing previousOwnerId: String?) async throws -> Bool

  /// Writes the holder's heartbeat; false when `ownerId` no longer holds the lease (taken over).
  func renewWorkerLease(ownerId: String, heartbeatAtMs: Int64) async throws -> Bool

  /// Gives the lease up, if `ownerId` still holds it.
  func releaseWorkerLease(ownerId: String) async throws

  // MARK: Store health

  /// Which stores are failing now, shared by every worker on the database, so that each one
  /// evaluates a chain under the same outage policy (`StoreHealth` caches it).
  ///
  /// These writes are **not fenced** by the worker lease, or by any job lease: a failure is an
  /// observation of the store, true whoever made it, and recording one only keeps subscribers
  /// in a little longer under the outage policy until the next answer ends it; a success from a
  /// worker that lost its lease is still an answer the store gave. What an ended outage triggers
  /// (`expediteRetries`) is a write of its own, fenced like every other.

  /// A call to `store` failed at `atMs` for a reason that is not the buyer's: starts an outage,
  /// or keeps the earliest `atMs` of the one under way. Atomic.
  func recordStoreFailure(_ store: Store, atMs: Int64) async throws

  /// A call to `store` succeeded: ends its outage, if one is recorded (by any worker). True only
  /// for the call whose write ended it: of several workers ending one outage at once, exactly one
  /// is told so (and expedites the store's postponed work).
  func recordStoreSuccess(_ store: Store, nowMs: Int64) async throws -> Bool

  /// The stores failing now, each with the earliest failure of its outage.
  func storeOutages() async throws -> [Store: Int64]

  // MARK: Store-call budgets

  /// Takes up to `wanted` calls to `store` from the budget every worker on the database shares:
  /// `limit` calls in the window that starts at `windowStartMs` (wall-clock ms, aligned by the
  /// caller, `StoreCallBudget`). Returns how many were granted, 0 when the window's budget is
  /// spent. A request for a window older than the stored one counts against the stored one (a
  /// worker whose clock is behind); a newer window starts afresh. Atomic with several workers:
  /// the grants of one window never add up to more than `limit`. Not fenced: a grant is only a
  /// permission to call the store.
  func reserveStoreCalls(_ store: Store, windowStartMs: Int64, wanted: Int, limit: Int) async throws -> Int

  // MARK: Job leases

  /// Takes the job lease `name` for `ownerId` until `nowMs + ttlMs`, or renews it: granted when
  /// nobody holds it, when its holder let it expire (`expiresAtMs <= nowMs`) or released it, or
  /// when `ownerId` holds it already (a renewal: same `generation`, a later expiry). A take-over
  /// from another owner increments `generation`. Nil when another owner holds it unexpired.
  /// Atomic with several workers (processes) on one database: two takes never both win. A
  /// storage that holds the worker lease (`worker.exclusive`) takes a job lease over at once: no
  /// other worker can be running. Times are wall-clock ms.
  ///
  /// **Fencing.** A write made by a singleton job carries its lease (`advanceWebhookCursor`,
  /// `recordWebhookFailure`, `finishWebhookRedelivery`, `prune` through `PrunePlan.lease`) and
  /// checks inside its own transaction that the lease row still names that owner and generation;
  /// otherwise it throws `StorageConflict` (`.leaseLost`) and writes nothing. An expired lease
  /// nobody took over still passes: nobody else can have done the job's work meanwhile.
  func takeJobLease(name: String, ownerId: String, nowMs: Int64, ttlMs: Int64) async throws -> JobLease?

  /// Gives the lease up if it is still held as `lease` says (same owner and generation); the next
  /// take by anyone is granted. Fenced writes with `lease` fail from then on.
  func releaseJobLease(_ lease: JobLease) async throws

  // MARK: Housekeeping

  /// Deletes what `plan` says is past its use, in one transaction; returns how many rows went.
  /// Fenced by `plan.lease` (`JobLease.housekeeping`) when set: `StorageConflict` (`.leaseLost`).
  func prune(_ plan: PrunePlan) async throws -> PruneCounts

  // MARK: Catalog

  /// Keeps the active product catalog, so every process (the admin commands) uses the worker's.
  func saveCatalog(_ catalog: ProductCatalog, nowMs: Int64) async throws

  /// The catalog the worker last saved; nil if no worker has run on this database yet.
  func savedCatalog() async throws -> ProductCatalog?

  // MARK: Support (issue 28)

  /// The chains `identifier` names in `store` (every store when nil) as each of `kinds` reads it:
  /// `.purchaseId` the chain's own id; `.transactionId` a stored transaction id, exactly;
  /// `.orderId` a Google Play order id reduced to its base (`GooglePlayOrderId.base(ofStoredTransactionId:)`,
  /// so `GPA.x`, `GPA.x..3` and `GPA.x|p` all find `GPA.x`, every renewal `..N` and every line item);
  /// `.storeUserId` the store's id of the buyer (Amazon). One match per chain (`.purchaseId`,
  /// `.storeUserId`) or per transaction (`.transactionId`, `.orderId`); an id may match one chain
  /// under several kinds (an Amazon receiptId is a chain and a transaction). Ids compare exactly
  /// (case and bytes). Ordered by `PurchaseMatch.inContractOrder` (bytes, never a collation), the
  /// first `limit` of that order. Reads only what is committed (an `apply` through any handle is
  /// seen once it returned), not in one snapshot across kinds; unfenced.
  func purchases(matching identifier: String, store: Store?, kinds: PurchaseIdentifierKinds, limit: Int)
    async throws -> [PurchaseMatch]

  /// Every event of one chain, whoever it was bound to when written (events of a transfer, of
  /// nobody), oldest first: in id order, which is commit order (`events(after:limit:)`).
  func events(store: Store, purchaseId: String) async throws -> [WorkerEvent]

  /// Deletes what the database holds of `userId` (GDPR erase, docs/security.md) and returns the
  /// counts; with `dryRun`, returns what it would delete and writes nothing. One transaction, seen
  /// whole or not at all from every handle, serialised with every other write of the user's
  /// subscriptions and grants (`apply`, `addGrant`, `revokeGrants`); fenced like every write (an
  /// admin storage holds no lease, so its erase is not).
  /// The user's chains stay, bound to nobody, their app account token, store user id and scheduled
  /// check cleared, `erasedAtMs` set to `nowMs` and `version` + 1 (an `apply` computed before
  /// fails with `.chainChanged`); a claim then needs fresh proof (`ClaimRuling`). Tokens naming
  /// the user on other chains are cleared. Grants, the user's events (parked deliveries with them),
  /// submitted purchases of every status (a claim of one then fails with `.claimLost`), entitlement
  /// records and the user row go; other users' claim and transfer events lose the user's name
  /// (`ErasureText`). The newest event of the database is scrubbed, not deleted: ids never come back.
  /// One change-feed entry (`reason` "erased") drops the user everywhere; housekeeping deletes it
  /// later (`PrunePlan.erasureMarkersBeforeMs`). A second erase finds nothing.
  func eraseUser(_ userId: String, dryRun: Bool, nowMs: Int64) async throws -> ErasureCounts

  // MARK: Closing

  /// Ends this storage: whoever opened it calls it once, when nothing will use it again (the
  /// worker's command after its services stopped, an admin command when it is done). A server
  /// database closes its connection pool and returns once it is closed; calls after it fail. The
  /// default does nothing: SQLite closes its file when the storage is released.
  func close() async
}

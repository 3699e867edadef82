import TollgateCore
import TollgateWorker

/// The storage conformance suite: what every `WorkerStorage` (and, where it has one, the
/// `EntitlementStorage` over the same database) must keep, whatever database it writes to. Each
/// case is a function over a `WorkerStorageUnderTest` that opens its own fresh database and fails
/// through Swift Testing's `#expect`/`#require`; each implementation's test target runs every case
/// as one named `@Test` (`Tests/TollgateWorkerTests/Conformance`, the fake;
/// `Tests/TollgateWorkerSQLiteTests/Conformance`, SQLite).
///
/// Cases live in `WorkerStorageConformance+<Topic>.swift`, one topic a file. A case that needs
/// what an implementation lacks (`ConformanceDatabase.openFeed`, `corruptSubscription`) is
/// listed in that implementation's runner as disabled, with the reason; it never passes vacuously.
public enum WorkerStorageConformance {
  // MARK: Fixtures shared by the cases

  /// A verified subscription of `user` (nil: a chain nobody submitted yet) active until
  /// `expiresAtMs`, due for a check then.
  public static func subscription(
    _ purchaseId: String, user: String?, expiresAtMs: Int64 = 1_000_000, store: Store = .appStore,
    verifiedAtMs: Int64 = 5
  ) -> StoredSubscription {
    let history = SubscriptionHistory(
      store: store, purchaseId: purchaseId, environment: .sandbox,
      transactions: [
        StoreTransaction(
          transactionId: "\(purchaseId)-1", productId: "monthly", purchaseDateMs: 0, expiresDateMs: expiresAtMs)
      ],
      renewalInfo: RenewalInfo(willAutoRenew: true), asOfMs: 0)
    return StoredSubscription(
      store: store, purchaseId: purchaseId, appId: "com.example", userId: user, history: history,
      evidence: VerificationEvidence(source: "test", environment: .sandbox, payloads: [], verifiedAtMs: verifiedAtMs),
      state: .active, reason: "current_period", productId: "monthly", willRenew: true, expiresAtMs: expiresAtMs,
      accessEndsAtMs: expiresAtMs, appAccountToken: nil, verifiedAtMs: verifiedAtMs, nextCheckAtMs: expiresAtMs)
  }

  /// One entitlement record per subscription of the user, ending when it ends (sources are the
  /// chains: `<store>:<purchaseId>`).
  public static let recompute: EntitlementRecompute = { userId, subscriptions, grants in
    subscriptions.map {
      EntitlementRecord.sample(
        userId: userId, source: "\($0.store.rawValue):\($0.purchaseId)", expiresAtMs: $0.expiresAtMs, store: $0.store)
    }
      + grants.filter { $0.revokedAtMs == nil }.map {
        EntitlementRecord.sample(userId: userId, source: "grant:\($0.grantId)", expiresAtMs: $0.expiresAtMs)
      }
  }

  /// An event of `subscription`'s chain, for its user.
  public static func event(_ kind: String, of subscription: StoredSubscription, atMs: Int64) -> WorkerEvent {
    WorkerEvent(
      userId: subscription.userId, kind: kind, store: subscription.store, purchaseId: subscription.purchaseId,
      productId: subscription.productId, state: subscription.state, atMs: atMs)
  }

  /// The change one verification of `subscription` writes: its transaction, the given events,
  /// the completion of an inbox item when given; computed from the chain's `expectedVersion`
  /// (0: not stored yet).
  public static func change(
    _ subscription: StoredSubscription, events: [WorkerEvent] = [], completes: InboxCompletion? = nil,
    alsoRecompute: String? = nil, nowMs: Int64 = 10, expectedVersion: Int64 = 0
  ) -> SubscriptionChange {
    let transactions = subscription.history.transactions.map {
      TransactionRow($0, environment: .sandbox, payloadSHA256: nil, signedAtMs: nil)
    }
    return SubscriptionChange(
      subscription: subscription, transactions: transactions, events: events, completes: completes,
      alsoRecompute: alsoRecompute, reason: "conformance", nowMs: nowMs, expectedVersion: expectedVersion)
  }
}

import Synchronization
import TollgateCore
import TollgateWorker

/// A `StoreGateway` that answers from a script: what each chain looks like now, or how the store
/// fails. A submission's receipt names the chain (`lookupId`; `otx-1@bare` names otx-1 with the
/// evidence scripted for that receipt); a notification's body is the chain's id, or `test` for an
/// informational one.
final class FakeStoreGateway: StoreGateway {
  static let route = "fake.v1"
  static let appId = "com.example.app"

  struct State {
    /// Answers for `fetchChain` by lookup id not yet given, in order.
    var answers: [String: [Result<VerifiedChain, StoreFailure>]] = [:]
    /// The answer given last by lookup id: it repeats until another is scripted.
    var lastAnswers: [String: Result<VerifiedChain, StoreFailure>] = [:]
    var identifyFailure: StoreFailure?
    var notificationFailure: StoreFailure?
    /// Apps this store no longer knows (a scheduled check finds none).
    var removedApps: Set<String> = []
    var fetched: [ChainReference] = []
    /// What a chain's notification proves by its own signed payloads, by chain id.
    var notificationEvidence: [String: VerifiedChain] = [:]
    /// Acknowledgement failures to give, in order, before acknowledgements succeed.
    var acknowledgeFailures: [StoreFailure] = []
    /// Chains acknowledged, by chain id, in order.
    var acknowledged: [String] = []
    /// What `sweep` answers, and the `sinceMs` it was asked with.
    var sweepAnswer: Result<[ChainReference], StoreFailure> = .success([])
    var sweptSince: [Int64] = []
    /// What a submission's receipt proves, by receipt; unscripted ones are vouched for and fresh.
    var claimEvidence: [String: ClaimEvidence] = [:]
  }

  let store: Store
  let state = Mutex(State())

  init(store: Store = .appStore) {
    self.store = store
  }

  var notificationRoutes: [NotificationRoute] {
    [
      NotificationRoute(name: Self.route, path: "/notifications/fake") { body in
        body.isEmpty ? nil : String(decoding: body, as: UTF8.self)
      }
    ]
  }

  /// The store's answers for `lookupId` from now on, in order, after any scripted answers not yet
  /// given; the last one given repeats until more are scripted.
  func answer(_ lookupId: String, _ results: Result<VerifiedChain, StoreFailure>...) {
    state.withLock { $0.answers[lookupId, default: []] += results }
  }

  var fetched: [ChainReference] { state.withLock { $0.fetched } }

  func identify(_ submission: PurchaseSubmission) async throws(StoreFailure) -> ChainReference {
    if let failure = state.withLock({ $0.identifyFailure }) { throw failure }
    guard let receipt = submission.receipt else { throw .final("no receipt") }
    // "otx-1@bare" names chain otx-1 by other evidence than "otx-1" (`State.claimEvidence`).
    let chainId = receipt.split(separator: "@").first.map(String.init) ?? receipt
    return ChainReference(
      store: store, appId: submission.appId ?? Self.appId, lookupId: chainId, purchaseId: chainId,
      environment: .sandbox,
      claimEvidence: state.withLock { $0.claimEvidence[receipt] } ?? .vouched())
  }

  func verifyNotification(_ payload: [UInt8], route: String) async throws(StoreFailure) -> NotificationVerdict {
    if let failure = state.withLock({ $0.notificationFailure }) { throw failure }
    let body = String(decoding: payload, as: UTF8.self)
    if body == "test" { return .informational(outcome: "informational: TEST") }
    let signed = state.withLock { $0.notificationEvidence[body] }
    return .chainChanged(
      ChainReference(
        store: store, appId: Self.appId, lookupId: body, purchaseId: body, environment: .sandbox,
        notSignedBeforeMs: signed?.evidence.newestSignedAtMs),
      reason: "notification", signed: signed)
  }

  func fetchChain(_ reference: ChainReference) async throws(StoreFailure) -> VerifiedChain {
    let answer = state.withLock { state -> Result<VerifiedChain, StoreFailure>? in
      state.fetched.append(reference)
      guard var queue = state.answers[reference.lookupId], !queue.isEmpty else {
        return state.lastAnswers[reference.lookupId]
      }
      let next = queue.removeFirst()
      state.answers[reference.lookupId] = queue
      state.lastAnswers[reference.lookupId] = next
      return next
    }
    guard let answer else { throw .final("transaction \(reference.lookupId) is unknown to the store") }
    return try answer.get()
  }

  func acknowledge(_ chain: VerifiedChain) async throws(StoreFailure) {
    let failure = state.withLock { state -> StoreFailure? in
      if !state.acknowledgeFailures.isEmpty { return state.acknowledgeFailures.removeFirst() }
      state.acknowledged.append(chain.purchaseId)
      return nil
    }
    if let failure { throw failure }
  }

  func sweep(sinceMs: Int64) async throws(StoreFailure) -> [ChainReference] {
    let answer = state.withLock { state in
      state.sweptSince.append(sinceMs)
      return state.sweepAnswer
    }
    return try answer.get()
  }

  func reference(for subscription: StoredSubscription) -> ChainReference? {
    guard !state.withLock({ $0.removedApps.contains(subscription.appId) }) else { return nil }
    return ChainReference(
      store: store, appId: subscription.appId, lookupId: subscription.purchaseId, purchaseId: subscription.purchaseId,
      environment: subscription.history.environment)
  }
}

extension VerifiedChain {
  /// A chain of one monthly subscription, renewed `renewals` times, as a store would answer.
  static func monthly(
    _ purchaseId: String, store: Store = .appStore, productId: String = "monthly", purchasedAtMs: Int64,
    expiresAtMs: Int64,
    willRenew: Bool = true, appAccountToken: String? = nil, asOfMs: Int64
  ) -> VerifiedChain {
    let history = SubscriptionHistory(
      store: store, purchaseId: purchaseId, environment: .sandbox,
      transactions: [
        StoreTransaction(
          transactionId: "\(purchaseId)-\(expiresAtMs)", productId: productId, purchaseDateMs: purchasedAtMs,
          expiresDateMs: expiresAtMs)
      ],
      renewalInfo: RenewalInfo(willAutoRenew: willRenew), asOfMs: asOfMs)
    return VerifiedChain(
      store: store, appId: FakeStoreGateway.appId, purchaseId: purchaseId, history: history,
      transactions: [
        TransactionRow(
          storeTransactionId: "\(purchaseId)-\(expiresAtMs)", productId: productId, purchasedAtMs: purchasedAtMs,
          expiresAtMs: expiresAtMs, revokedAtMs: nil, revocationReason: nil, offerType: nil, environment: .sandbox,
          payloadSHA256: nil, signedAtMs: asOfMs)
      ],
      evidence: VerificationEvidence(
        source: "fake_store", environment: .sandbox,
        payloads: [.init(kind: "transaction", id: "\(purchaseId)-\(expiresAtMs)", sha256: "", signedAtMs: asOfMs)],
        verifiedAtMs: asOfMs),
      appAccountToken: appAccountToken)
  }
}

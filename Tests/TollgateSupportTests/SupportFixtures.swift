import Logging
import Synchronization
import TollgateCallers
import TollgateCore
import TollgateSupport
import TollgateTesting
import TollgateWorker

/// A `FakeWorkerStorage` with chains of the three stores, a catalog, and the desk and responder on it.
struct SupportFixture {
  static let day: Int64 = 86_400_000
  static let now: Int64 = 1_795_000_000_000

  let storage = FakeWorkerStorage()
  let clock = ManualClockMs(now)

  static var catalog: ProductCatalog {
    ProductCatalog(
      apps: [], entitlements: [EntitlementDefinition(id: "premium"), EntitlementDefinition(id: "basic")],
      products: [ProductConfig(productId: "premium.monthly", entitlements: ["premium", "basic"])])
  }

  func desk(gateways: [any StoreGateway] = []) -> SupportDesk {
    SupportDesk(
      storage: storage, gateways: StoreGateways(gateways), nowMs: clock.reader, logger: Logger(label: "test.support"))
  }

  func responder(gateways: [any StoreGateway] = []) -> AdminResponder {
    AdminResponder(desk: desk(gateways: gateways), logger: Logger(label: "test.support"))
  }

  func saveCatalog() async { await storage.saveCatalog(Self.catalog, nowMs: Self.now) }

  /// Stores a verified chain bound to `userId`, with `transactionIds` as its periods (a month each).
  @discardableResult
  func seedChain(
    _ store: Store, _ purchaseId: String, userId: String?, transactionIds: [String], storeUserId: String? = nil,
    product: String = "premium.monthly"
  ) async throws -> StoredSubscription {
    let transactions = transactionIds.enumerated().map { index, id in
      StoreTransaction(
        transactionId: id, productId: product,
        purchaseDateMs: Self.now - Int64(transactionIds.count - index) * 30 * Self.day,
        expiresDateMs: Self.now - Int64(transactionIds.count - index - 1) * 30 * Self.day + Self.day)
    }
    let history = SubscriptionHistory(
      store: store, purchaseId: purchaseId, environment: .sandbox, transactions: transactions, asOfMs: Self.now)
    let subscription = StoredSubscription(
      store: store, purchaseId: purchaseId, appId: "app", userId: userId, history: history,
      evidence: VerificationEvidence(source: "test", environment: .sandbox, payloads: [], verifiedAtMs: Self.now),
      state: .active, reason: "current_period", productId: product, willRenew: true,
      expiresAtMs: Self.now + Self.day, accessEndsAtMs: Self.now + Self.day, appAccountToken: nil,
      storeUserId: storeUserId, verifiedAtMs: Self.now, nextCheckAtMs: Self.now + Self.day)
    let rows = transactions.map { TransactionRow($0, environment: .sandbox, payloadSHA256: nil, signedAtMs: nil) }
    let events = [
      WorkerEvent(
        userId: userId, kind: "purchased", store: store, purchaseId: purchaseId, productId: product, state: .active,
        atMs: transactions.first?.purchaseDateMs ?? Self.now)
    ]
    try await storage.apply(
      SubscriptionChange(
        subscription: subscription, transactions: rows, events: userId == nil ? [] : events, completes: nil,
        alsoRecompute: nil, reason: "test", nowMs: Self.now),
      recompute: { _, _, _ in [] })
    return subscription
  }
}

/// The deployment's clock, set by the test.
final class ManualClockMs: Sendable {
  private let value: Mutex<Int64>

  init(_ start: Int64) { value = Mutex(start) }

  var reader: @Sendable () -> Int64 { { self.value.withLock { $0 } } }

  func set(_ ms: Int64) { value.withLock { $0 = ms } }
}

/// An App Store whose order lookup answers what the test says, and counts the calls.
final class FakeOrderLookup: OrderLookupGateway {
  let store: Store = .appStore
  var notificationRoutes: [NotificationRoute] { [] }
  private let answer: Mutex<Result<[OrderLine], StoreFailure>>
  private let calls = Mutex(0)

  init(_ answer: Result<[OrderLine], StoreFailure>) { self.answer = Mutex(answer) }

  var callCount: Int { calls.withLock { $0 } }

  func lookUpOrder(_ orderId: String) async throws(StoreFailure) -> [OrderLine] {
    calls.withLock { $0 += 1 }
    return try answer.withLock { $0 }.get()
  }

  func identify(_ submission: PurchaseSubmission) async throws(StoreFailure) -> ChainReference {
    throw .final("not used")
  }

  func verifyNotification(_ payload: [UInt8], route: String) async throws(StoreFailure) -> NotificationVerdict {
    throw .final("not used")
  }

  func fetchChain(_ reference: ChainReference) async throws(StoreFailure) -> VerifiedChain { throw .final("not used") }

  func reference(for subscription: StoredSubscription) -> ChainReference? { nil }
}

extension CallerIdentity {
  static let ops = CallerIdentity(name: "ops", scopes: [.admin])
}

import AppStore
import AsyncHTTPClient
import Logging
import TollgateCore
import TollgateWorker

/// The worker's door to Apple: turns submitted evidence into a transaction id, verifies App Store
/// Server Notifications, and reads the authoritative state of a purchase chain from the App Store
/// Server API, verifying every signed payload before it is believed. Apple's errors are classified
/// in one place (`AppleFailure.classified`).
public final class AppStoreGateway: StoreGateway {
  public let store: Store = .appStore
  let apps: [AppleApp]
  let limiter: StoreCallLimiter
  public var callLimiter: StoreCallLimiter? { limiter }
  let nowMs: @Sendable () -> Int64
  let logger: Logger

  /// Builds the verifiers and API clients of every configured app.
  /// - Parameters:
  ///   - environment: where API keys and shared secrets named by the settings are read from.
  ///   - concurrency: App Store calls in flight at once.
  ///   - budget: the deployment's budget for the store's calls (`StoreCallBudget.configured`), if any.
  public init(
    settings: AppStoreSettings, environment: [String: String], httpClient: HTTPClient, concurrency: Int,
    budget: StoreCallBudget? = nil, nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) throws {
    apps = try settings.apps.map {
      try AppleApp(settings: $0, environment: environment, httpClient: httpClient, nowMs: nowMs, logger: logger)
    }
    limiter = StoreCallLimiter(permits: concurrency, budget: budget)
    self.nowMs = nowMs
    self.logger = logger
  }

  /// The app for `bundleId`; with no bundle id, the only app if there is exactly one.
  func app(bundleId: String?) -> AppleApp? {
    guard let bundleId else { return apps.count == 1 ? apps[0] : nil }
    return apps.first { $0.bundleId == bundleId }
  }

  public func identify(_ submission: PurchaseSubmission) async throws(StoreFailure) -> ChainReference {
    guard let receipt = submission.receipt else {
      throw .final("\(submission.store.rawValue) purchases are not verified by this version yet")
    }
    do {
      let identified = try await identify(receipt: receipt, appId: submission.appId)
      return ChainReference(
        store: .appStore, appId: identified.app.bundleId, lookupId: identified.transactionId,
        purchaseId: identified.originalTransactionId, environment: identified.environment,
        claimEvidence: identified.evidence)
    } catch {
      throw error.classified
    }
  }

  public func verifyNotification(_ payload: [UInt8], route: String) async throws(StoreFailure) -> NotificationVerdict {
    do throws(AppleFailure) {
      switch route {
      // The chain and signature checks run on the blocking pool, not the cooperative one.
      case Self.v2Route: return try await BlockingWork.run { () throws(AppleFailure) in try self.verifyV2(payload) }
      case Self.v1Route: return try verifyV1(payload)
      default: throw AppleFailure.rejected("unknown notification route \(route)")
      }
    } catch {
      throw error.classified
    }
  }

  public func fetchChain(_ reference: ChainReference) async throws(StoreFailure) -> VerifiedChain {
    guard let app = app(bundleId: reference.appId) else { throw .final(unknownApp(reference.appId)) }
    do {
      return try await fetchChain(app: app, transactionId: reference.lookupId, environment: reference.environment)
    } catch {
      throw error.classified
    }
  }

  public func reference(for subscription: StoredSubscription) -> ChainReference? {
    app(bundleId: subscription.appId).map { app in
      ChainReference(
        store: .appStore, appId: app.bundleId, lookupId: subscription.purchaseId, purchaseId: subscription.purchaseId,
        environment: subscription.history.environment)
    }
  }

  func unknownApp(_ bundleId: String?) -> String {
    bundleId.map { "\($0) is not a configured App Store app" }
      ?? "app_id is required: several App Store apps are configured"
  }

  func environmentRefusal(_ environment: StoreEnvironment, app: AppleApp) -> String {
    "a \(environment.rawValue) purchase is not accepted by \(app.bundleId) (\(app.settings.environment) app)"
  }
}

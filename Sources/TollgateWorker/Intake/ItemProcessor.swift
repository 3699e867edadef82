import AppStore
import Foundation
import Logging
import TollgateCore
import TollgateStorage

/// Turns one inbox item (a submitted purchase or a stored notification) into verified state, or
/// puts it back for later when the store could not be asked. Never changes state on a failure.
struct ItemProcessor: Sendable {
  let gateway: AppleGateway
  let refresher: ChainRefresher
  let storage: SQLiteWorkerStorage
  let backoff: Backoff
  let environment: [String: String]
  let stats: WorkerStats
  let nowMs: @Sendable () -> Int64
  let logger: Logger

  func process(_ item: InboxItem) async {
    do {
      switch item.kind {
      case .purchase: try await processPurchase(item)
      case .notification: try await processNotification(item)
      }
      stats.verified()
    } catch let failure as WorkerFailure {
      await handle(failure, item: item)
    } catch {
      // Storage trouble: the item stays leased and comes back when the lease ends.
      logger.error("processing an inbox item failed", metadata: ["inbox.id": "\(item.id)", "error": "\(error)"])
    }
  }

  private func processPurchase(_ item: InboxItem) async throws {
    let submission: PurchaseSubmission
    do {
      submission = try JSONDecoder().decode(PurchaseSubmission.self, from: Data(item.payload))
    } catch {
      throw WorkerFailure.rejected("the stored submission cannot be read")
    }
    guard submission.store == .appStore, let receipt = submission.receipt else {
      throw WorkerFailure.rejected("\(submission.store.rawValue) purchases are not verified by this version yet")
    }
    let identified = try await gateway.identify(receipt: receipt, appId: submission.appId)
    try await refresher.refresh(
      app: identified.app, transactionId: identified.transactionId, environment: identified.environment,
      lockKey: identified.originalTransactionId, claimant: submission.userId, completes: item.id, reason: "purchase")
  }

  private func processNotification(_ item: InboxItem) async throws {
    switch item.store {
    case NotificationRoutes.appleV2: try await processAppleV2(item)
    case NotificationRoutes.appleV1: try await processAppleV1(item)
    default: throw WorkerFailure.rejected("unknown notification route \(item.store)")
    }
  }

  private func processAppleV2(_ item: InboxItem) async throws {
    let claimed = NotificationRoutes.unverifiedAppleV2Facts(item.payload)
    guard let app = gateway.app(bundleId: claimed.bundleId) else {
      throw WorkerFailure.rejected("notification for an app that is not configured (\(claimed.bundleId ?? "no bundle id"))")
    }
    let verified: VerifiedNotification
    switch app.verifier.verifyNotificationBody(item.payload) {
    case .valid(let notification): verified = notification
    case .invalid(let error):
      logger.warning("a notification failed verification", metadata: ["inbox.id": "\(item.id)", "error": "\(error.code)"])
      throw WorkerFailure.rejected("notification: \(error.code) (\(error.message))")
    }
    guard let transactionId = verified.transaction?.originalTransactionId ?? verified.renewalInfo?.originalTransactionId
    else {
      try await storage.finishInbox(
        id: item.id, state: .verified, outcome: "informational: \(verified.notification.notificationType ?? "unknown")",
        nowMs: nowMs())
      return
    }
    // The notification says something changed; what changed is read from the store itself.
    let environment = verified.transaction.map { StoreEnvironment(appStore: $0.environment) }
    let reason = "notification \(verified.notification.notificationType ?? "")/\(verified.notification.subtype ?? "")"
    try await refresher.refresh(
      app: app, transactionId: transactionId, environment: environment, claimant: nil, completes: item.id, reason: reason)
  }

  private func processAppleV1(_ item: InboxItem) async throws {
    let claimed = NotificationRoutes.unverifiedAppleV1BundleId(item.payload)
    guard let app = gateway.app(bundleId: claimed), let secret = app.settings.sharedSecret(environment: environment) else {
      throw WorkerFailure.rejected("V1 notification for an app without a configured shared secret")
    }
    let notification: NotificationV1
    switch NotificationV1.verify(body: Data(item.payload), sharedSecret: secret, bundleId: app.bundleId) {
    case .valid(let value): notification = value
    case .invalid(let error): throw WorkerFailure.rejected("V1 notification: \(error.code)")
    }
    guard let latest = notification.unifiedReceipt?.transactions.max(by: { ($0.purchaseDateMs ?? 0) < ($1.purchaseDateMs ?? 0) }),
      let id = latest.originalTransactionId ?? latest.transactionId
    else {
      try await storage.finishInbox(id: item.id, state: .verified, outcome: "informational V1", nowMs: nowMs())
      return
    }
    let reason = "notification v1 \(notification.notificationType ?? "")"
    try await refresher.refresh(app: app, transactionId: id, environment: nil, claimant: nil, completes: item.id, reason: reason)
  }

  private func handle(_ failure: WorkerFailure, item: InboxItem) async {
    let now = nowMs()
    do {
      switch failure {
      case .rejected(let reason):
        stats.rejected()
        logger.notice("inbox item rejected", metadata: ["inbox.id": "\(item.id)", "reason": "\(reason)"])
        try await storage.finishInbox(id: item.id, state: .rejected, outcome: reason, nowMs: now)
      case .store(let error) where !error.isRetryable && error.code != .invalidResponse:
        try await storage.finishInbox(id: item.id, state: .rejected, outcome: error.description, nowMs: now)
      case .store(let error):
        stats.storeFailure(error.description, atMs: now)
        let delay = backoff.delayMs(attempt: item.attempts, retryAfterMs: error.retryAfterMs)
        logger.warning(
          "store unavailable; will retry",
          metadata: ["inbox.id": "\(item.id)", "error": "\(error)", "retry.in_ms": "\(delay)", "retry.attempt": "\(item.attempts)"])
        try await storage.retryInbox(id: item.id, atMs: now + delay, error: error.description)
      }
    } catch {
      logger.error("recording an inbox outcome failed", metadata: ["inbox.id": "\(item.id)", "error": "\(error)"])
    }
  }
}

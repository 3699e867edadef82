import AppStore
import TollgateCore
import TollgateWorker

/// Look Up Order ID (`GET /inApps/v1/lookup/{orderId}`): the purchases of the order id on a
/// customer's App Store receipt e-mail, for support's lookup. Apple serves it in production only
/// ("This endpoint isn't available in the sandbox environment"), so each app is asked through its
/// production client; an app configured for the sandbox alone has none, and is asked through its
/// sandbox client (Apple answers no order there; the store simulator serves it on both).
extension AppStoreGateway: OrderLookupGateway {
  public func lookUpOrder(_ orderId: String) async throws(StoreFailure) -> [OrderLine] {
    var lines: [OrderLine] = []
    var failure: StoreFailure?
    for app in apps {
      guard let api = app.productionAPI ?? app.sandboxAPI else { continue }
      let response: AppStoreServerAPI.OrderLookupResponse
      do {
        response = try await limited("lookUpOrderId") { () async throws(AppStoreAPIError) in
          try await api.lookUpOrderId(orderId)
        }
      } catch {
        switch error.code {
        // Apple's answer to an id that is no order id at all: no such order.
        case .badRequest, .notFound: continue
        default:
          logger.warning(
            "App Store order lookup failed",
            metadata: [
              "apple.bundle_id": "\(app.bundleId)", "apple.order_id": "\(Store.appStore.loggable(orderId))",
              "error": "\(error.code)",
            ])
          failure = AppleFailure.store(error).classified
          continue
        }
      }
      // Status 1: this app has no such order.
      guard response.status == 0, let signed = response.signedTransactions, !signed.isEmpty else { continue }
      lines += await verifiedLines(signed, app: app, orderId: orderId)
    }
    // Another app's answer still counts when one app could not be asked.
    if lines.isEmpty, let failure { throw failure }
    return lines
  }

  /// The lines whose signed transaction the app's verifier accepts, checked on the blocking pool
  /// (chain and signature checks are CPU work); a forged or foreign one is dropped and logged.
  private func verifiedLines(_ signed: [String], app: AppleApp, orderId: String) async -> [OrderLine] {
    let results = await BlockingWork.run { signed.map { app.verifier.verifyTransaction($0) } }
    var lines: [OrderLine] = []
    for result in results {
      switch result {
      case .valid(let transaction):
        guard let transactionId = transaction.transactionId,
          let originalTransactionId = transaction.originalTransactionId
        else { continue }
        lines.append(
          OrderLine(
            appId: app.bundleId, transactionId: transactionId, originalTransactionId: originalTransactionId,
            productId: transaction.productId ?? "", environment: StoreEnvironment(appStore: transaction.environment),
            signedAtMs: transaction.signedDate))
      case .invalid(let error):
        logger.error(
          "a transaction from the App Store's order lookup failed verification: dropped",
          metadata: [
            "apple.bundle_id": "\(app.bundleId)", "apple.order_id": "\(Store.appStore.loggable(orderId))",
            "error": "\(error.code)",
          ])
      }
    }
    return lines
  }
}

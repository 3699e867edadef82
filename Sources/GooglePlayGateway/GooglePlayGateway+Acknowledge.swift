import Foundation
import GooglePlay
import TollgateCore
import TollgateWorker

extension GooglePlayGateway {
  /// Google refunds a purchase that is not acknowledged within 3 days of its purchase.
  static let acknowledgementWindowMs: Int64 = 3 * 86_400_000

  /// A paid subscription Google still waits to hear about, when this app acknowledges.
  func acknowledgement(_ resource: SubscriptionPurchaseV2, app: GooglePlayApp) -> PendingAcknowledgement? {
    guard app.settings.acknowledge, resource.typedAcknowledgementState == .pending else { return nil }
    switch resource.typedSubscriptionState {
    case .active?, .inGracePeriod?, .onHold?, .paused?, .canceled?:
      guard let start = resource.startTime else { return nil }
      return PendingAcknowledgement(deadlineMs: start + Self.acknowledgementWindowMs)
    default:
      // Pending payment, expired, or a state this version does not know: nothing was delivered.
      return nil
    }
  }

  /// A purchased one-time product Google still waits to hear about, when this app acknowledges.
  func acknowledgement(_ resource: ProductPurchaseV2, app: GooglePlayApp) -> PendingAcknowledgement? {
    guard app.settings.acknowledge, resource.typedAcknowledgementState == .pending,
      resource.purchaseStateContext?.typedPurchaseState == .purchased, let purchased = resource.purchaseCompletionTime
    else { return nil }
    return PendingAcknowledgement(deadlineMs: purchased + Self.acknowledgementWindowMs)
  }

  /// `purchases.subscriptions.acknowledge` or `purchases.products.acknowledge`, by what the chain
  /// was read as.
  public func acknowledge(_ chain: VerifiedChain) async throws(StoreFailure) {
    guard let app = app(packageName: chain.appId) else { throw .final("package \(chain.appId) is not configured") }
    let isProduct = chain.evidence.payloads.contains { $0.kind == "product_v2" }
    let latest = chain.history.transactions.max { $0.purchaseDateMs < $1.purchaseDateMs }
    guard let productId = latest?.productId else { throw .final("no product id to acknowledge the purchase under") }
    let token = chain.purchaseId
    do throws(AndroidPublisherError) {
      try await limiter.withPermit(call: "acknowledge") { () async throws(AndroidPublisherError) in
        if isProduct {
          try await app.api.acknowledgeProduct(packageName: app.packageName, productId: productId, purchaseToken: token)
        } else {
          try await app.api.acknowledgeSubscription(
            packageName: app.packageName, subscriptionId: productId, purchaseToken: token)
        }
      }
    } catch {
      throw error.classified
    }
  }
}

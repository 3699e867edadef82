import Foundation
import GooglePlay
import TollgateCore
import TollgateWorker

extension GooglePlayGateway {
  /// Stored with each Real-time developer notification.
  public static let rtdnRoute = "google_play.rtdn"

  public var notificationRoutes: [NotificationRoute] {
    let admission = self.admission
    return [NotificationRoute(name: Self.rtdnRoute, path: "/notifications/google") { await admission.admit($0) }]
  }

  /// A stored push, authenticated when it arrived: the notification is only a trigger, and the
  /// purchase it names is read again from Google (`fetchChain`).
  public func verifyNotification(_ payload: [UInt8], route: String) async throws(StoreFailure) -> NotificationVerdict {
    guard route == Self.rtdnRoute else { throw .final("unknown notification route \(route)") }
    let notification: DeveloperNotification
    do {
      let envelope = try JSONDecoder().decode(PubSubPushEnvelope.self, from: Data(payload))
      notification = try envelope.developerNotification()
    } catch {
      throw .final("the stored push is not a DeveloperNotification: \(error)")
    }
    switch notification.kind {
    case .test:
      return .informational(outcome: "test notification")
    case .pendingRefundReview:
      return .informational(outcome: "pending refund review: nothing changes until Google decides")
    case .unknown:
      return .informational(outcome: "a notification kind this version does not know: nothing read")
    case .subscription, .oneTimeProduct, .voidedPurchase:
      break
    }
    guard let packageName = notification.packageName, let app = app(packageName: packageName) else {
      return .informational(outcome: "package \(notification.packageName ?? "(none)") is not configured")
    }
    guard let token = notification.purchaseToken, !token.isEmpty else {
      return .informational(outcome: "a notification without a purchase token: nothing read")
    }
    var reference = ChainReference(
      store: .googlePlay, appId: app.packageName, lookupId: token, purchaseId: token, environment: nil)
    let revokedNow = notification.subscriptionNotification?.typedNotificationType == .revoked
    if notification.voidedPurchaseNotification != nil || revokedNow {
      // Google says (authenticated) this purchase, or one order of it, was refunded, charged back
      // or revoked; the voided purchases list says which and when (`listedRevocations`), so the
      // one refunded/revoked event has its reason now. Without it: a refund of the order at the
      // event's time, until the sweep reads the list.
      let at = notification.eventTimeMillis ?? nowMs()
      let listed = await listedRevocations(app: app, token: token, sinceMs: at - Self.voidedLookbackMs) ?? []
      if !listed.isEmpty {
        reference.revocations = listed
      } else if let voided = notification.voidedPurchaseNotification {
        reference.revocations = [ReportedRevocation(orderId: voided.orderId, revokedAtMs: at, reason: .refunded)]
      }
    }
    return .chainChanged(reference, reason: Self.reason(notification), signed: nil)
  }

  /// What the notification said, for events and logs (`RTDN SUBSCRIPTION_RENEWED (2)`).
  static func reason(_ notification: DeveloperNotification) -> String {
    if let subscription = notification.subscriptionNotification {
      let type = subscription.notificationType ?? 0
      let name = subscription.typedNotificationType.map { "SUBSCRIPTION_\(Self.screaming("\($0)"))" } ?? "SUBSCRIPTION"
      return "RTDN \(name) (\(type))"
    }
    if let product = notification.oneTimeProductNotification {
      let type = product.notificationType ?? 0
      let name =
        product.typedNotificationType.map { "ONE_TIME_PRODUCT_\(Self.screaming("\($0)"))" } ?? "ONE_TIME_PRODUCT"
      return "RTDN \(name) (\(type))"
    }
    return "RTDN VOIDED_PURCHASE"
  }

  /// `inGracePeriod` → `IN_GRACE_PERIOD`.
  private static func screaming(_ camel: String) -> String {
    var result = ""
    for character in camel {
      if character.isUppercase { result += "_" }
      result += character.uppercased()
    }
    return result
  }
}

import Foundation
import GooglePlay
import TollgateCore
import TollgateWorker

extension GooglePlayGateway {
  /// Stored with each Real-time developer notification.
  public static let rtdnRoute = "google_play.rtdn"

  /// The largest push body taken (64 KiB): a Pub/Sub push of a developer notification is a few
  /// hundred bytes (the notification, base64, in a small envelope), so anything near the worker's
  /// 1 MiB bound is a stranger's, and costs no more than this to read and refuse.
  public static let maximumPushBytes = 64 << 10

  public var notificationRoutes: [NotificationRoute] {
    let admission = self.admission
    return [
      NotificationRoute(name: Self.rtdnRoute, path: "/notifications/google", maximumBodyBytes: Self.maximumPushBytes) {
        await admission.admit($0)
      }
    ]
  }

  /// A stored push, authenticated when it arrived: the notification is only a trigger, and the
  /// purchase it names is read again from Google (`fetchChain`); a voided purchase is what
  /// Google's voided purchases list says of it (`confirmedRevocations`), never the body's word.
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
      // The push's token proves Pub/Sub delivered it, not that its body is Google's: one captured
      // `Authorization` header carries any body. So the notification is only a trigger: Google's
      // voided purchases list, asked now, says whether (and which order, when, refund or
      // chargeback) was voided, and the purchase itself is read next (`fetchChain`). Nothing the
      // list does not hold is revoked.
      reference.revocations = try await confirmedRevocations(
        app: app, token: token, notifiedAtMs: notification.eventTimeMillis)
      if reference.revocations.isEmpty {
        logUnconfirmedVoid(app: app, token: token, reason: Self.reason(notification))
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

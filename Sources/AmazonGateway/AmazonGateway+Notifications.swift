import AmazonAppstore
import Foundation
import TollgateCore
import TollgateWorker

extension AmazonGateway {
  /// Stored with each Real-Time Notification.
  public static let rtnRoute = "amazon.rtn"

  /// The largest SNS delivery taken (512 KiB): SNS carries messages of at most 256 KiB, and its
  /// JSON envelope (the message escaped, the signature, the URLs) stays well under twice that;
  /// an RTN itself is under a kilobyte.
  public static let maximumDeliveryBytes = 512 << 10

  public var notificationRoutes: [NotificationRoute] {
    let admission = self.admission
    return [
      NotificationRoute(
        name: Self.rtnRoute, path: "/notifications/amazon", maximumBodyBytes: Self.maximumDeliveryBytes
      ) { await admission.admit($0) }
    ]
  }

  /// A stored SNS Notification, verified when it arrived: the RTN inside is only a trigger, and
  /// the receipt it names is read again from RVS (`fetchChain`), as the Amazon user it names.
  public func verifyNotification(_ payload: [UInt8], route: String) async throws(StoreFailure) -> NotificationVerdict {
    guard route == Self.rtnRoute else { throw .final("unknown notification route \(route)") }
    let message: SNSMessage
    do {
      message = try JSONDecoder().decode(SNSMessage.self, from: Data(payload))
    } catch {
      throw .final("the stored SNS message does not decode: \(error)")
    }
    guard let text = message.message, let notification = AmazonNotification(message: text) else {
      return .informational(outcome: "an SNS notification that is not an Amazon Real-Time Notification")
    }
    guard let app = app(notification.appPackageName) else {
      return .informational(outcome: "Amazon app \(notification.appPackageName ?? "(none)") is not configured")
    }
    guard let receiptId = notification.receiptId, !receiptId.isEmpty, let userId = notification.appUserId,
      !userId.isEmpty
    else {
      return .informational(outcome: "a notification without a receipt id or user id: nothing read")
    }
    let reference = ChainReference(
      store: .amazon, appId: app.appPackageName, lookupId: receiptId, purchaseId: receiptId,
      environment: app.settings.usesSandbox ? .sandbox : nil, storeUserId: userId,
      relatedPurchaseIds: notification.relatedReceiptIds)
    return .chainChanged(
      reference, reason: "RTN \(notification.notificationType ?? "(no type)")", signed: nil)
  }
}

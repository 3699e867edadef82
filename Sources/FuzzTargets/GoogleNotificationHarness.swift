import Foundation
import GooglePlay
import TollgateCore

/// Input: the body of a push to `/notifications/google`, read as the gateway reads it (a Pub/Sub
/// push envelope, then the RTDN in its `message.data`) and as `tollgate inspect` reads a file (an
/// envelope, a bare DeveloperNotification or its base64), mapped to Core.
enum GoogleNotificationHarness {
  static func run(_ bytes: [UInt8]) {
    let body = Data(bytes)
    if let envelope = try? JSONDecoder().decode(PubSubPushEnvelope.self, from: body) {
      if let notification = try? envelope.developerNotification() {
        map(notification, messageId: envelope.message?.messageId ?? "")
      }
    }
    if let notification = try? DeveloperNotification.decode(json: body) {
      map(notification, messageId: "fuzz")
    }
    let text = String(decoding: bytes, as: UTF8.self)
    if let notification = try? DeveloperNotification.decode(base64: text) {
      map(notification, messageId: "fuzz")
    }
    _ = try? GooglePlayInspection.inspectNotification(text)
  }

  private static func map(_ notification: DeveloperNotification, messageId: String) {
    _ = notification.kind
    _ = notification.purchaseToken
    _ = notification.storeEventKind
    _ = notification.subscriptionNotification?.typedNotificationType
    _ = notification.oneTimeProductNotification?.typedNotificationType
    _ = StoreEvent(googlePlay: notification, messageId: messageId)
  }
}

import Foundation
import GooglePlay
import Testing
import TollgateCore
import TollgateTesting

/// RTDN vectors as Core store events: triggers naming the purchase, never state.
@Suite("RTDN → Core", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct NotificationMappingTests {
  func notification(_ name: String) throws -> DeveloperNotification {
    try DeveloperNotification.decode(json: try GoogleVectors.data("aporat-rtdn/\(name).json"))
  }

  @Test func aRenewalFromTheEnvelopeIsATriggerForItsToken() throws {
    let envelope: PubSubPushEnvelope = try GoogleVectors.decode(
      "aporat-rtdn/pubsub-push-envelope-subscription-renewed-DERIVED.json")
    let notification = try envelope.developerNotification()
    let messageId = try #require(envelope.message?.messageId)
    let event = try #require(StoreEvent(googlePlay: notification, messageId: messageId))
    #expect(event.eventId == "1234567890" && event.store == .googlePlay && event.purchaseId == "sub-token-123")
    #expect(event.kind == .renewed && event.occurredAtMs == 1_756_911_600_000)
    #expect(event.transactions.isEmpty && event.renewalInfo == nil)
  }

  @Test func kindsOfTheOtherNotifications() throws {
    #expect(try notification("rtdn-one-time-purchased-type1").storeEventKind == .purchased)
    #expect(try notification("rtdn-voided-purchase-subscription-full-refund").storeEventKind == .refunded)
    #expect(try notification("rtdn-test-notification").storeEventKind == .informational)
    #expect(try notification("rtdn-pending-refund-review").storeEventKind == .informational)
    #expect(StoreEvent(googlePlay: try notification("rtdn-test-notification"), messageId: "m") == nil)
    #expect(StoreEvent(googlePlay: try notification("rtdn-pending-refund-review"), messageId: "m") == nil)
    let real = try DeveloperNotification.decode(
      base64: try GoogleVectors.text("rtdn-imdhemy-real/rtdn-subscription-expired-type13-20201018.b64"))
    #expect(StoreEvent(googlePlay: real, messageId: "m")?.kind == .expired)
  }

  @Test func anUndocumentedSubscriptionTypeIsNoEvent() throws {
    let body = #"{"packageName": "p", "subscriptionNotification": {"notificationType": 14, "purchaseToken": "t"}}"#
    let n = try DeveloperNotification.decode(json: Data(body.utf8))
    #expect(n.storeEventKind == nil && StoreEvent(googlePlay: n, messageId: "m") == nil)
  }

  @Test func snakeCaseEnvelopeKeysAreRead() throws {
    let body = #"{"message": {"data": "e30=", "message_id": "42", "publish_time": "2020-12-11T05:53:05.929Z"}}"#
    let envelope = try JSONDecoder().decode(PubSubPushEnvelope.self, from: Data(body.utf8))
    #expect(envelope.message?.messageId == "42" && envelope.message?.publishTime == 1_607_665_985_929)
    // `e30=` is `{}`: JSON, but no notification.
    #expect(throws: DeveloperNotificationError.emptyNotification) { try envelope.developerNotification() }
  }
}

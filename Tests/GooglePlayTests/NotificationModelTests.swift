import Foundation
import GooglePlay
import Testing
import TollgateTesting

/// vectors/google/aporat-rtdn, rtdn-docs and rtdn-imdhemy-real: DeveloperNotifications, bare and
/// inside Pub/Sub push envelopes; a body that is not one gives a typed error.
@Suite("RTDN and Pub/Sub push models", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct NotificationModelTests {
  func notification(_ name: String) throws -> DeveloperNotification {
    try DeveloperNotification.decode(json: try GoogleVectors.data("aporat-rtdn/\(name).json"))
  }

  @Test func subscriptionRenewed() throws {
    let n = try notification("rtdn-subscription-renewed-type2")
    #expect(n.kind == .subscription && n.packageName == "app.example" && n.version == "1.0")
    #expect(n.eventTimeMillis == 1_756_911_600_000 && n.purchaseToken == "sub-token-123")
    #expect(n.subscriptionNotification?.typedNotificationType == .renewed)
    #expect(n.subscriptionNotification?.subscriptionId == "app.example.subscription")
  }

  @Test func oneTimeVoidedTestAndPendingRefund() throws {
    let oneTime = try notification("rtdn-one-time-purchased-type1")
    #expect(oneTime.kind == .oneTimeProduct && oneTime.oneTimeProductNotification?.typedNotificationType == .purchased)
    #expect(
      oneTime.oneTimeProductNotification?.sku == "app.example.coins.100"
        && oneTime.purchaseToken == "one-time-token-123")
    let voided = try notification("rtdn-voided-purchase-subscription-full-refund")
    #expect(voided.kind == .voidedPurchase && voided.purchaseToken == "voided-token-123")
    #expect(voided.voidedPurchaseNotification?.typedProductType == .subscription)
    #expect(voided.voidedPurchaseNotification?.typedRefundType == .fullRefund)
    #expect(voided.voidedPurchaseNotification?.orderId == "GPA.1000-2000-3000-40000")
    let test = try notification("rtdn-test-notification")
    #expect(test.kind == .test && test.testNotification?.version == "1.0" && test.purchaseToken == nil)
    let review = try notification("rtdn-pending-refund-review")
    #expect(review.kind == .pendingRefundReview && review.pendingRefundReviewNotification?.refundReason == 7)
    #expect(review.pendingRefundReviewNotification?.pendingRefundToken == "pending-refund-token-123")
  }

  @Test func anUnknownSubscriptionTypeDecodesRaw() throws {
    let body = #"{"packageName": "p", "subscriptionNotification": {"notificationType": 99, "purchaseToken": "t"}}"#
    let n = try DeveloperNotification.decode(json: Data(body.utf8))
    #expect(n.subscriptionNotification?.notificationType == 99)
    #expect(n.subscriptionNotification?.typedNotificationType == nil)
  }

  @Test func everyDocumentedSubscriptionTypeIsTyped() {
    let documented = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17, 18, 19, 20, 22]
    #expect(SubscriptionNotificationType.allCases.map(\.rawValue) == documented)
    #expect(SubscriptionNotificationType(rawValue: 14) == nil && SubscriptionNotificationType(rawValue: 21) == nil)
  }

  @Test func derivedEnvelope() throws {
    let envelope: PubSubPushEnvelope = try GoogleVectors.decode(
      "aporat-rtdn/pubsub-push-envelope-subscription-renewed-DERIVED.json")
    #expect(envelope.message?.messageId == "1234567890")
    #expect(envelope.message?.publishTime == ms("2026-09-03T15:00:00.000Z"))
    #expect(envelope.subscription == "projects/test-project/subscriptions/rtdn-push")
    let n = try envelope.developerNotification()
    #expect(n == (try notification("rtdn-subscription-renewed-type2")))
  }

  @Test(arguments: [
    (
      "rtdn-subscription-expired-type13-20201018.b64", SubscriptionNotificationType.expired, "week_premium",
      Int64(1_603_051_412_791)
    ),
    ("rtdn-subscription-expired-type13-20201029.b64", .expired, "month_premium", Int64(1_604_002_842_332)),
    ("rtdn-subscription-purchased-type4-20201021.b64", .purchased, "week_premium", Int64(1_603_300_807_361)),
  ])
  func realPlayMessageData(file: String, type: SubscriptionNotificationType, product: String, time: Int64) throws {
    let n = try DeveloperNotification.decode(base64: try GoogleVectors.text("rtdn-imdhemy-real/\(file)"))
    #expect(n.packageName == "com.twigano.fashion" && n.eventTimeMillis == time)
    #expect(n.subscriptionNotification?.typedNotificationType == type)
    #expect(n.subscriptionNotification?.subscriptionId == product)
    #expect(n.purchaseToken?.contains(".AO-J1O") == true)
  }

  @Test func realTestNotification() throws {
    let n = try DeveloperNotification.decode(
      base64: try GoogleVectors.text("rtdn-imdhemy-real/rtdn-test-notification-20201028.b64"))
    #expect(n.kind == .test && n.eventTimeMillis == 1_603_916_533_722)
  }

  @Test func realEnvelopeWithNonJSONDataIsATypedError() throws {
    let envelope: PubSubPushEnvelope = try GoogleVectors.decode(
      "rtdn-imdhemy-real/pubsub-push-envelope-non-json-data.json")
    #expect(envelope.message?.messageId == "1838996669366530")
    #expect(envelope.message?.publishTime == ms("2020-12-11T05:53:05.929Z"))
    #expect(envelope.subscription == "projects/hunch-3bcef/subscriptions/HunchSubscription")
    #expect {
      _ = try envelope.developerNotification()
    } throws: { error in
      guard case .notADeveloperNotification = error as? DeveloperNotificationError else { return false }
      return true
    }
  }

  @Test func docExampleEnvelopeCarriesASchemaNotJSON() throws {
    // The documentation's data is the schema's text ("version": string, …), not JSON.
    let envelope: PubSubPushEnvelope = try GoogleVectors.decode("rtdn-docs/pubsub-envelope-doc-example.json")
    #expect(envelope.message?.attributes == ["key": "value"] && envelope.message?.messageId == "136969346945")
    #expect(envelope.message?.publishTime == nil)
    #expect(throws: DeveloperNotificationError.self) { try envelope.developerNotification() }
  }

  @Test func bodiesThatAreNotNotifications() {
    #expect(throws: DeveloperNotificationError.missingData) { try PubSubPushEnvelope().developerNotification() }
    #expect(throws: DeveloperNotificationError.invalidBase64) { try DeveloperNotification.decode(base64: "!!!") }
    #expect(throws: DeveloperNotificationError.emptyNotification) {
      try DeveloperNotification.decode(json: Data("{}".utf8))
    }
    // base64 of `[1,2]`: JSON, but not an object.
    #expect {
      _ = try DeveloperNotification.decode(base64: "WzEsMl0=")
    } throws: { error in
      guard case .notADeveloperNotification = error as? DeveloperNotificationError else { return false }
      return true
    }
  }

  @Test func urlSafeUnpaddedBase64Decodes() throws {
    let json = #"{"packageName":"p","testNotification":{"version":"1.0"}}"#
    let standard = Data(json.utf8).base64EncodedString()
    let urlSafe = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
    #expect(try DeveloperNotification.decode(base64: urlSafe).kind == .test)
  }
}

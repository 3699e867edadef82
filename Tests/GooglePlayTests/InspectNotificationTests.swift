import Foundation
import GooglePlay
import Testing
import TollgateCrypto
import TollgateTesting

@Suite(
  "inspect google-notification: summary, verdict and push authentication",
  .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct InspectNotificationTests {
  typealias T = OIDCTestTokens

  static func inspect(_ file: String, authentication: GooglePlayInspection.PushAuthenticationCheck? = nil) throws
    -> GooglePlayInspection.Report
  {
    try GooglePlayInspection.inspectNotification(try GoogleVectors.text(file), authentication: authentication)
  }

  @Test("every bare RTDN vector: its kind, type, token, package, subscription and event time")
  func bareNotifications() throws {
    let expected: [(file: String, kind: String, type: Int?, token: String?, subscriptionId: String?)] = [
      ("rtdn-subscription-renewed-type2.json", "subscription", 2, "sub-token-123", "app.example.subscription"),
      ("rtdn-one-time-purchased-type1.json", "oneTimeProduct", 1, "one-time-token-123", nil),
      ("rtdn-voided-purchase-subscription-full-refund.json", "voidedPurchase", nil, "voided-token-123", nil),
      ("rtdn-test-notification.json", "test", nil, nil, nil),
      ("rtdn-pending-refund-review.json", "pendingRefundReview", nil, nil, nil),
    ]
    for vector in expected {
      let report = try Self.inspect("aporat-rtdn/" + vector.file)
      #expect(report.isValid, "\(vector.file)")
      let summary = try #require(report.summary)
      #expect(summary["kind"] as? String == vector.kind)
      #expect(summary["notificationType"] as? Int == vector.type)
      #expect(summary["purchaseToken"] as? String == vector.token)
      #expect(summary["subscriptionId"] as? String == vector.subscriptionId)
      #expect(summary["packageName"] as? String == "app.example")
      #expect(summary["eventTimeMs"] as? Int64 == 1_756_911_600_000)
      #expect(summary["messageId"] is NSNull)
      #expect(report.extra["envelope"] is NSNull)
      #expect((report.payload as? [String: Any])?["packageName"] as? String == "app.example")
    }
  }

  @Test("real RTDN message.data from Play (base64): expired, purchased, test")
  func realBase64Data() throws {
    let expired = try Self.inspect("rtdn-imdhemy-real/rtdn-subscription-expired-type13-20201018.b64")
    #expect(expired.isValid)
    #expect(expired.summary?["kind"] as? String == "subscription")
    #expect(expired.summary?["notificationType"] as? Int == 13)
    #expect(expired.summary?["packageName"] as? String == "com.twigano.fashion")
    #expect(expired.summary?["subscriptionId"] as? String == "week_premium")
    #expect(expired.summary?["eventTimeMs"] as? Int64 == 1_603_051_412_791)
    let purchased = try Self.inspect("rtdn-imdhemy-real/rtdn-subscription-purchased-type4-20201021.b64")
    #expect(purchased.summary?["notificationType"] as? Int == 4)
    let test = try Self.inspect("rtdn-imdhemy-real/rtdn-test-notification-20201028.b64")
    #expect(test.isValid)
    #expect(test.summary?["kind"] as? String == "test")
    #expect(test.summary?["purchaseToken"] is NSNull)
  }

  @Test("a push envelope: the notification inside, the messageId, and the envelope echoed")
  func envelope() throws {
    let report = try Self.inspect("aporat-rtdn/pubsub-push-envelope-subscription-renewed-DERIVED.json")
    #expect(report.isValid)
    let summary = try #require(report.summary)
    #expect(summary["messageId"] as? String == "1234567890")
    #expect(summary["kind"] as? String == "subscription")
    #expect(summary["notificationType"] as? Int == 2)
    #expect(summary["purchaseToken"] as? String == "sub-token-123")
    #expect((report.payload as? [String: Any])?["subscriptionNotification"] is [String: Any])
    let envelope = try #require(report.extra["envelope"] as? [String: Any])
    #expect(envelope["subscription"] as? String == "projects/test-project/subscriptions/rtdn-push")
  }

  @Test("an envelope whose data is not a notification (a real one, and Google's doc example) is invalid")
  func envelopeWithoutNotification() throws {
    let real = try Self.inspect("rtdn-imdhemy-real/pubsub-push-envelope-non-json-data.json")
    #expect(real.problem?.code == "not_a_developer_notification")
    #expect(real.summary?["messageId"] as? String == "1838996669366530")
    #expect(real.summary?["kind"] is NSNull)
    #expect(real.payload == nil)
    let doc = try Self.inspect("rtdn-docs/pubsub-envelope-doc-example.json")
    #expect(doc.problem?.code == "not_a_developer_notification")
    #expect(doc.summary?["messageId"] as? String == "136969346945")

    let noData = try GooglePlayInspection.inspectNotification(#"{"message": {"messageId": "1"}}"#)
    #expect(noData.problem?.code == "missing_data")
    let badBase64 = try GooglePlayInspection.inspectNotification(#"{"message": {"data": "%%%"}}"#)
    #expect(badBase64.problem?.code == "invalid_base64")
  }

  @Test("a notification with no member Tollgate knows is invalid; a malformed one too; neither form is unreadable")
  func unknownAndUnreadable() throws {
    let unknown = try GooglePlayInspection.inspectNotification(#"{"packageName": "app.example", "version": "1.0"}"#)
    #expect(unknown.problem?.code == "unknown_notification")
    #expect(unknown.summary?["kind"] as? String == "unknown")
    let malformed = try GooglePlayInspection.inspectNotification(
      #"{"packageName": "app.example", "eventTimeMillis": "soon"}"#)
    #expect(malformed.problem?.code == "malformed_notification")
    let notJSON = Data("plain text".utf8).base64EncodedString()
    for text in ["%%% neither %%%", #"{"hello": "world"}"#, "[1]", notJSON] {
      #expect(throws: GooglePlayInspection.Unreadable.self, "\(text)") {
        try GooglePlayInspection.inspectNotification(text)
      }
    }
  }

  static func check(
    token: String? = nil, keySet: String = T.jwks, audience: String = T.audience,
    serviceAccount: String? = T.serviceAccount, at: Int64 = T.issuedAt * 1_000
  ) throws -> GooglePlayInspection.PushAuthenticationCheck {
    GooglePlayInspection.PushAuthenticationCheck(
      token: try token ?? Vectors.trimmed(T.serviceAccountToken), keys: try GoogleKeySet(json: Vectors.bytes(keySet)),
      config: .init(audience: audience, serviceAccountEmail: serviceAccount), atMs: at)
  }

  @Test("a real Google-signed token verifies at its time against the JWKS and the PEM certificates")
  func authenticated() throws {
    for keySet in [T.jwks, T.pemCertificates] {
      let report = try Self.inspect(
        "aporat-rtdn/pubsub-push-envelope-subscription-renewed-DERIVED.json",
        authentication: try Self.check(keySet: keySet))
      #expect(report.isValid)
      let authentication = try #require(report.extra["authentication"] as? [String: Any])
      #expect(authentication["verdict"] as? String == "valid")
      #expect(authentication["error"] is NSNull)
      #expect(authentication["email"] as? String == T.serviceAccount)
      #expect(authentication["audience"] as? String == T.audience)
      #expect(Set(authentication.keys) == ["verdict", "error", "email", "audience"])
    }
    let bearer = try Self.check(token: "Bearer " + Vectors.trimmed(T.serviceAccountToken))
    #expect(try Self.inspect("aporat-rtdn/rtdn-test-notification.json", authentication: bearer).isValid)
  }

  @Test("a refused token makes the whole verdict invalid: audience, service account, expiry, tampering, unknown kid")
  func refused() throws {
    let file = "aporat-rtdn/pubsub-push-envelope-subscription-renewed-DERIVED.json"
    let token = try Vectors.trimmed(T.serviceAccountToken)
    var parts = token.split(separator: ".").map(String.init)
    parts[1] = Base64URL.encode(
      try JSONSerialization.data(withJSONObject: T.pushClaims(iat: T.issuedAt, overriding: ["aud": "https://evil"])))
    let cases: [(GooglePlayInspection.PushAuthenticationCheck, String)] = [
      (try Self.check(audience: "https://tollgate.example/notifications/google"), "invalid_audience"),
      (try Self.check(serviceAccount: "push@other.iam.gserviceaccount.com"), "invalid_email"),
      (try Self.check(at: (T.expiresAt + 3_600) * 1_000), "expired"),
      (try Self.check(token: parts.joined(separator: ".")), "signature_mismatch"),
      (try Self.check(token: Vectors.trimmed(T.cloudTasksToken), at: 1_660_877_073_000), "unknown_key"),
      (try Self.check(token: Vectors.trimmed(T.es256Token)), "unsupported_algorithm"),
      (try Self.check(token: "not-a-token"), "malformed_token"),
    ]
    for (check, code) in cases {
      let report = try Self.inspect(file, authentication: check)
      #expect(!report.isValid, "\(code)")
      #expect(report.problem?.code == code)
      let authentication = try #require(report.extra["authentication"] as? [String: Any])
      #expect(authentication["verdict"] as? String == "invalid")
      #expect(authentication["error"] as? String == code)
      #expect(report.summary?["kind"] as? String == "subscription")
    }
    // What the forged token claims is shown, never trusted.
    let forged = try Self.inspect(file, authentication: try Self.check(token: parts.joined(separator: ".")))
    #expect((forged.extra["authentication"] as? [String: Any])?["audience"] as? String == "https://evil")
  }

  @Test("the notification's own problem comes first; the token's verdict is still reported")
  func bothInvalid() throws {
    let report = try Self.inspect(
      "rtdn-imdhemy-real/pubsub-push-envelope-non-json-data.json", authentication: try Self.check())
    #expect(report.problem?.code == "not_a_developer_notification")
    #expect((report.extra["authentication"] as? [String: Any])?["verdict"] as? String == "valid")
    #expect(!report.json.contains(try Vectors.trimmed(T.serviceAccountToken)))
  }
}

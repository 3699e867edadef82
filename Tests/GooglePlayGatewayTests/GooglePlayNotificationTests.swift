import Foundation
import GooglePlay
import GooglePlayGateway
import Logging
import Testing
import TollgateCore
import TollgateCrypto
import TollgateTesting
import TollgateWorker

/// Google's Real-time developer notifications at the gateway: the Pub/Sub push's OIDC token is
/// checked before anything is stored (keys from a scripted JWKS endpoint over HTTP), a stored
/// push becomes a read of the purchase it names, and a voided purchase ends access from its time.
@Suite(
  "Google Play notifications at the gateway", .serialized,
  .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct GooglePlayNotificationTests {
  static let package = "com.example.app"
  static let audience = "https://tollgate.example.com/notifications/google"
  static let pusher = "rtdn-push@example-project.iam.gserviceaccount.com"
  static let now: Int64 = 1_767_225_600_000

  struct Setup {
    var gateway: GooglePlayGateway
    var server: ScriptedHTTPServer
    var key: RSAPrivateKey
    var route: NotificationRoute
  }

  static func withGateway(
    package: String = package, audience: String = audience, pusher: String = pusher, now: Int64 = now,
    _ body: (Setup) async throws -> Void
  ) async throws {
    let server = try await ScriptedHTTPServer.start()
    var app = GooglePlayAppSettings(packageName: package)
    app.serviceAccountKeyEnv = "GOOGLE_KEY"
    app.pushAudience = audience
    app.pushServiceAccount = pusher
    app.apiBaseURL = server.baseURL
    app.tokenURI = server.baseURL + "/token"
    app.jwksURL = server.baseURL + "/oauth2/v3/certs"
    let key = try Vectors.string("google/aporat-oauth/test-service-account-key.json")
    let gateway = try GooglePlayGateway(
      settings: GooglePlaySettings(apps: [app]), environment: ["GOOGLE_KEY": key], httpClient: .shared,
      concurrency: 2, nowMs: { now }, logger: Logger(label: "test.google.rtdn"))
    let route = try #require(gateway.notificationRoutes.first)
    do {
      try await body(Setup(gateway: gateway, server: server, key: try RSAPrivateKey.generate(), route: route))
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  static func jwks(_ key: RSAPrivateKey, kid: String = "k1") throws -> ScriptedHTTPServer.Reply {
    let (n, e) = try key.publicKey.components()
    return .json(
      200,
      [
        "keys": [
          ["kid": kid, "kty": "RSA", "alg": "RS256", "use": "sig", "n": Base64URL.encode(n), "e": Base64URL.encode(e)]
        ]
      ],
      headers: ["Cache-Control": "public, max-age=3600"])
  }

  static func token(_ key: RSAPrivateKey, kid: String = "k1", overriding changes: [String: Any] = [:]) throws -> String
  {
    var claims: [String: Any] = [
      "iss": "https://accounts.google.com", "aud": audience, "email": pusher, "email_verified": true,
      "iat": now / 1000, "exp": now / 1000 + 3600, "sub": "1234", "azp": "1234",
    ]
    for (name, value) in changes { claims[name] = value }
    let header = try JSONSerialization.data(
      withJSONObject: ["alg": "RS256", "kid": kid, "typ": "JWT"], options: [.sortedKeys])
    let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
    let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
    return input + "." + Base64URL.encode(try RS256.sign(Array(input.utf8), with: key))
  }

  /// A Pub/Sub push body around `notification`.
  static func push(_ notification: [String: Any], messageId: String = "msg-1") throws -> [UInt8] {
    let data = try JSONSerialization.data(withJSONObject: notification).base64EncodedString()
    let envelope: [String: Any] = [
      "message": ["data": data, "messageId": messageId, "publishTime": "2026-01-01T00:00:00.000Z"],
      "subscription": "projects/example/subscriptions/rtdn",
    ]
    return Array(try JSONSerialization.data(withJSONObject: envelope))
  }

  static func renewed(token: String = "tok-1", package: String = package) -> [String: Any] {
    [
      "version": "1.0", "packageName": package, "eventTimeMillis": "\(now - 1_000)",
      "subscriptionNotification": ["version": "1.0", "notificationType": 2, "purchaseToken": token],
    ]
  }

  @Test("a push is stored only with a valid token: none 401, wrong audience or signer 403, keys unreachable 503")
  func admission() async throws {
    try await Self.withGateway { setup in
      let body = try Self.push(Self.renewed())
      #expect(await setup.route.admit(NotificationRequest(body: body)).isRefusal(401))
      // Google's keys cannot be fetched and none are cached: Pub/Sub must try again later.
      let unreachable = await setup.route.admit(
        NotificationRequest(body: body, authorization: "Bearer \(try Self.token(setup.key))"))
      guard case .refuse(503, _) = unreachable else {
        Issue.record("expected 503 while the keys cannot be fetched, got \(unreachable)")
        return
      }
    }
    try await Self.withGateway { setup in
      setup.server.enqueue("GET", "/oauth2/v3/certs", try Self.jwks(setup.key))
      let body = try Self.push(Self.renewed())
      let valid = try Self.token(setup.key)
      #expect(
        await setup.route.admit(NotificationRequest(body: body, authorization: "Bearer \(valid)"))
          == .store(dedupeKey: "msg-1"))
      for (name, token) in [
        ("wrong audience", try Self.token(setup.key, overriding: ["aud": "https://elsewhere.example.com"])),
        ("wrong service account", try Self.token(setup.key, overriding: ["email": "someone@example.com"])),
        ("email not verified", try Self.token(setup.key, overriding: ["email_verified": false])),
        (
          "expired",
          try Self.token(setup.key, overriding: ["iat": Self.now / 1000 - 7200, "exp": Self.now / 1000 - 3600])
        ),
        ("another key", try Self.token(try RSAPrivateKey.generate())),
        ("tampered", String(valid.dropLast(4)) + "AAAA"),
      ] {
        let admission = await setup.route.admit(NotificationRequest(body: body, authorization: "Bearer \(token)"))
        guard case .refuse(403, _) = admission else {
          Issue.record("\(name): expected 403, got \(admission)")
          continue
        }
      }
      #expect(await setup.route.admit(NotificationRequest(body: body, authorization: "Basic abc")).isRefusal(401))
      // Authentic, but nothing to act on: acknowledged so Pub/Sub stops redelivering, not stored.
      let auth = "Bearer \(valid)"
      for body in [Array("not json".utf8), Array(#"{"message": {"messageId": "m"}}"#.utf8), try Self.push(["foo": 1])] {
        let admission = await setup.route.admit(NotificationRequest(body: body, authorization: auth))
        guard case .acknowledge = admission else {
          Issue.record("expected an acknowledgement without storing, got \(admission)")
          continue
        }
      }
      let elsewhere = await setup.route.admit(
        NotificationRequest(body: try Self.push(Self.renewed(package: "com.other.app")), authorization: auth))
      guard case .acknowledge = elsewhere else {
        Issue.record("a notification for another package must not be stored, got \(elsewhere)")
        return
      }
    }
  }

  @Test("a real Google-signed push token is verified against Google's keys of its time")
  func realToken() async throws {
    let compact = try Vectors.string(
      "google/oidc-google-auth-library-java/google-id-token-rs256-service-account-2020-04-23.txt"
    )
    .trimmingCharacters(in: .whitespacesAndNewlines)
    try await Self.withGateway(
      package: "app.example", audience: "https://example.com/path",
      pusher: "integration-tests@chingor-test.iam.gserviceaccount.com", now: 1_587_626_288_000 + 60_000
    ) { setup in
      setup.server.enqueue(
        "GET", "/oauth2/v3/certs",
        .init(
          status: 200,
          body: try Vectors.bytes("google/oidc-google-auth-library-java/googleapis-oauth2-v3-certs-jwks-2020-04.json")))
      let envelope = try Vectors.bytes("google/aporat-rtdn/pubsub-push-envelope-subscription-renewed-DERIVED.json")
      #expect(
        await setup.route.admit(NotificationRequest(body: envelope, authorization: "Bearer \(compact)"))
          == .store(dedupeKey: "1234567890"))
    }
  }

  @Test("a stored push is a trigger: re-read the purchase; test and refund-review notifications change nothing")
  func verdicts() async throws {
    try await Self.withGateway { setup in
      let renewed = try await setup.gateway.verifyNotification(
        try Self.push(Self.renewed()), route: GooglePlayGateway.rtdnRoute)
      guard case .chainChanged(let reference, let reason, let signed) = renewed else {
        Issue.record("expected a read, got \(renewed)")
        return
      }
      #expect(reference.lookupId == "tok-1" && reference.purchaseId == "tok-1" && reference.appId == Self.package)
      #expect(reason == "RTDN SUBSCRIPTION_RENEWED (2)")
      #expect(signed == nil && reference.revocations.isEmpty)

      // A voided notification is a trigger too: only what Google's voided purchases list says for
      // the token, asked now, is revoked (issue 25 item 5).
      setup.server.enqueue("POST", "/token", try GooglePlayGatewayTests().tokenReply())
      let list = "/androidpublisher/v3/applications/\(Self.package)/purchases/voidedpurchases"
      setup.server.enqueue(
        "GET", list,
        .json(
          200,
          [
            "voidedPurchases": [
              [
                "purchaseToken": "tok-2", "voidedTimeMillis": "\(Self.now - 6_000)", "orderId": "GPA.1",
                "voidedReason": 7,
              ],
              ["purchaseToken": "tok-other", "voidedTimeMillis": "\(Self.now - 7_000)", "orderId": "GPA.5"],
            ]
          ]))
      let confirmed = try await Self.voidedReference(setup, token: "tok-2")
      #expect(
        confirmed.revocations == [ReportedRevocation(orderId: "GPA.1", revokedAtMs: Self.now - 6_000, reason: .revoked)]
      )
      let asked = try #require(setup.server.recorded.last { $0.path == list })
      #expect(asked.query.contains("startTime=\(Self.now - 5_000 - 86_400_000)") && asked.query.contains("type=1"))

      // Google lists nothing for the token: nothing is revoked, whatever the body said.
      setup.server.enqueue(
        "GET", list, .json(200, ["voidedPurchases": [["purchaseToken": "tok-other", "voidedTimeMillis": "1"]]]))
      #expect(try await Self.voidedReference(setup, token: "tok-2").revocations.isEmpty)
      setup.server.enqueue("GET", list, .json(200, [:]))
      #expect(try await Self.voidedReference(setup, token: "tok-2", revokedSubscription: true).revocations.isEmpty)

      // The list cannot be read: the item is retried, nothing is taken from the body meanwhile.
      setup.server.enqueue("GET", list, .json(503, ["error": ["code": 503]]))
      do throws(StoreFailure) {
        _ = try await Self.voidedReference(setup, token: "tok-2")
        Issue.record("a voided notification Google could not confirm was applied")
      } catch {
        #expect(error.kind == .transient, "\(error)")
      }

      for (notification, outcome) in [
        (
          ["version": "1.0", "packageName": Self.package, "testNotification": ["version": "1.0"]] as [String: Any],
          "test notification"
        ),
        (
          ["version": "1.0", "packageName": Self.package, "pendingRefundReviewNotification": ["version": "1.0"]],
          "pending refund review: nothing changes until Google decides"
        ),
      ] {
        #expect(
          try await setup.gateway.verifyNotification(try Self.push(notification), route: GooglePlayGateway.rtdnRoute)
            == .informational(outcome: outcome))
      }
    }
  }

  /// The reference a VOIDED_PURCHASE (or SUBSCRIPTION_REVOKED) notification for `token` becomes.
  static func voidedReference(_ setup: Setup, token: String, revokedSubscription: Bool = false)
    async throws(StoreFailure)
    -> ChainReference
  {
    var notification: [String: Any] = [
      "version": "1.0", "packageName": Self.package, "eventTimeMillis": "\(Self.now - 5_000)",
    ]
    if revokedSubscription {
      notification["subscriptionNotification"] = ["version": "1.0", "notificationType": 12, "purchaseToken": token]
    } else {
      notification["voidedPurchaseNotification"] = [
        "purchaseToken": token, "orderId": "GPA.1", "productType": 1, "refundType": 1,
      ]
    }
    let body: [UInt8]
    do { body = try Self.push(notification) } catch { throw .final("\(error)") }
    let verdict = try await setup.gateway.verifyNotification(body, route: GooglePlayGateway.rtdnRoute)
    guard case .chainChanged(let reference, _, _) = verdict else { throw .final("expected a read, got \(verdict)") }
    #expect(reference.lookupId == token)
    return reference
  }

  static func resource(acknowledged: Bool, start: Int64 = now - 60_000) -> [String: Any] {
    [
      "kind": "androidpublisher#subscriptionPurchaseV2", "startTime": RFC3339Text.of(start),
      "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "latestOrderId": "GPA.7",
      "acknowledgementState": acknowledged ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING",
      "lineItems": [
        [
          "productId": "monthly", "expiryTime": RFC3339Text.of(now + 30 * 86_400_000),
          "autoRenewingPlan": ["autoRenewEnabled": true], "latestSuccessfulOrderId": "GPA.7",
        ]
      ],
    ]
  }

  @Test("a pending acknowledgement has a 3-day deadline from the purchase and is sent to the v1 path")
  func acknowledged() async throws {
    try await Self.withGateway { setup in
      let server = setup.server
      server.enqueue("POST", "/token", try GooglePlayGatewayTests().tokenReply())
      let path = "/androidpublisher/v3/applications/\(Self.package)/purchases"
      server.enqueue("GET", "\(path)/subscriptionsv2/tokens/tok-7", .json(200, Self.resource(acknowledged: false)))
      let reference = ChainReference(
        store: .googlePlay, appId: Self.package, lookupId: "tok-7", purchaseId: "tok-7", environment: nil)
      let chain = try await setup.gateway.fetchChain(reference)
      #expect(chain.acknowledgement == PendingAcknowledgement(deadlineMs: Self.now - 60_000 + 3 * 86_400_000))
      #expect(chain.history.transactions.allSatisfy { $0.revocationDateMs == nil })

      server.enqueue("POST", "\(path)/subscriptions/monthly/tokens/tok-7:acknowledge", .json(200, [:]))
      try await setup.gateway.acknowledge(chain)
      #expect(
        server.recorded.contains {
          $0.method == "POST" && $0.path == "\(path)/subscriptions/monthly/tokens/tok-7:acknowledge"
        })

      // Acknowledged since: nothing left to acknowledge.
      server.enqueue("GET", "\(path)/subscriptionsv2/tokens/tok-7", .json(200, Self.resource(acknowledged: true)))
      #expect(try await setup.gateway.fetchChain(reference).acknowledgement == nil)
    }
  }

  @Test("the sweep lists voided purchases page by page as chains to read, a chargeback as revoked")
  func sweep() async throws {
    try await Self.withGateway { setup in
      setup.server.enqueue("POST", "/token", try GooglePlayGatewayTests().tokenReply())
      let path = "/androidpublisher/v3/applications/\(Self.package)/purchases/voidedpurchases"
      setup.server.enqueue(
        "GET", path,
        .init(status: 200, body: try Vectors.bytes("google/aporat-voided-products/voidedpurchases-list-page.json")))
      setup.server.enqueue(
        "GET", path,
        .json(
          200,
          [
            "voidedPurchases": [
              [
                "purchaseToken": "voided-token-1", "voidedTimeMillis": "1756911700000", "orderId": "GPA.9",
                "voidedReason": 1,
              ]
            ]
          ]))
      let references = try await setup.gateway.sweep(sinceMs: Self.now - 86_400_000)
      #expect(references.map(\.lookupId) == ["voided-token-1", "voided-token-2"])
      #expect(
        references[0].revocations == [
          ReportedRevocation(orderId: "GPA.1000-2000-3000-40000", revokedAtMs: 1_756_911_600_000, reason: .revoked),
          ReportedRevocation(orderId: "GPA.9", revokedAtMs: 1_756_911_700_000, reason: .refunded),
        ])
      let requests = setup.server.recorded.filter { $0.path == path }
      #expect(requests.count == 2)
      #expect(requests[0].query.contains("type=1") && requests[0].query.contains("startTime=\(Self.now - 86_400_000)"))
      #expect(requests[1].query.contains("token=next-page"))
    }
  }
}

extension NotificationAdmission {
  func isRefusal(_ status: Int) -> Bool {
    if case .refuse(status, _) = self { return true }
    return false
  }
}

/// RFC 3339 with milliseconds, as Google writes times.
enum RFC3339Text {
  static func of(_ ms: Int64) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1_000))
  }
}

import Foundation
import Testing
import TollgateCrypto
import TollgateTesting

/// `tollgate inspect google-*` as a support engineer runs it, on the public vectors in
/// ../shared/vectors/google.
@Suite("tollgate inspect google-*", .serialized)
struct InspectGoogleCommandTests {
  static let vectors = Vectors.directory + "/google/"
  static let oidc = vectors + "oidc-google-auth-library-java/"
  static let token = oidc + "google-id-token-rs256-service-account-2020-04-23.txt"
  static let jwks = oidc + "googleapis-oauth2-v3-certs-jwks-2020-04.json"
  static let pemCerts = oidc + "googleapis-oauth2-v1-certs-pem-2020-04.json"
  static let audience = "https://example.com/path"
  static let serviceAccount = "integration-tests@chingor-test.iam.gserviceaccount.com"
  /// The token's `iat`, in ms.
  static let tokenTime = "1587626288000"
  static let envelope = vectors + "aporat-rtdn/pubsub-push-envelope-subscription-renewed-DERIVED.json"

  func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  func summary(_ text: String) throws -> [String: Any] { try #require(try json(text)["summary"] as? [String: Any]) }

  @Test("a subscriptionsv2 resource: Tollgate's state and entitlement at --at; a partial one is invalid (exit 1)")
  func subscription() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let active = try await ChildProcess.runDetached([
      "inspect", "google-subscription",
      Self.vectors + "aporat-subscriptionsv2/subscriptionsv2-active-acknowledged.json",
      "--at", "1767225600000",
    ])
    #expect(active.status == 0, "\(active.stderr)")
    let document = try json(active.stdout)
    #expect(document["verdict"] as? String == "valid")
    #expect(document["error"] is NSNull)
    #expect((document["payload"] as? [String: Any])?["subscriptionState"] as? String == "SUBSCRIPTION_STATE_ACTIVE")
    let facts = try summary(active.stdout)
    #expect(facts["state"] as? String == "active")
    #expect(facts["entitled"] as? Bool == true)
    #expect(facts["environment"] as? String == "production")
    #expect(facts["productIds"] as? [String] == ["app.example.subscription"])

    let later = try await ChildProcess.runDetached([
      "inspect", "google-subscription",
      Self.vectors + "aporat-subscriptionsv2/subscriptionsv2-active-acknowledged.json",
      "--at", "1798761600000",
    ])
    #expect(later.status == 0)
    #expect(try summary(later.stdout)["entitled"] as? Bool == false)

    let unknown = try await ChildProcess.runDetached([
      "inspect", "google-subscription",
      Self.vectors + "aporat-subscriptionsv2/subscriptionsv2-partial-unknown-state.json",
    ])
    #expect(unknown.status == 1)
    #expect(try json(unknown.stdout)["error"] as? String == "unknown_subscription_state")
    #expect(try summary(unknown.stdout)["entitled"] as? Bool == false)
  }

  @Test("a partial subscriptionsv2 body with no line items is in the state it names: PAUSED is paused, not expired")
  func partialStateAsNamed() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let named: [(subscriptionState: String, state: String)] = [
      ("SUBSCRIPTION_STATE_PAUSED", "paused"), ("SUBSCRIPTION_STATE_ON_HOLD", "on_hold"),
      ("SUBSCRIPTION_STATE_EXPIRED", "expired"),
    ]
    for (index, (subscriptionState, state)) in named.enumerated() {
      let file = dir.file("partial-\(index).json")
      let body =
        #"{"kind": "androidpublisher#subscriptionPurchaseV2", "subscriptionState": "\#(subscriptionState)", "#
        + #""pausedStateContext": {"autoResumeTime": "2026-10-01T00:00:00Z"}}"#
      try body.write(toFile: file, atomically: true, encoding: .utf8)
      let result = try await ChildProcess.runDetached([
        "inspect", "google-subscription", file, "--at", "1767225600000",
      ])
      #expect(result.status == 0, "\(subscriptionState): \(result.stdout) \(result.stderr)")
      let facts = try summary(result.stdout)
      #expect(facts["state"] as? String == state, "\(subscriptionState)")
      #expect(facts["entitled"] as? Bool == false)
    }
  }

  @Test("a v1 subscription resource on account hold, and one still active")
  func legacySubscription() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let directory = Self.vectors + "subscriptions-v1-classytaxi/"
    let hold = try await ChildProcess.runDetached([
      "inspect", "google-subscription", directory + "purchases-subscriptions-v1-account-hold.json", "--at",
      "1700000000000",
    ])
    #expect(hold.status == 0, "\(hold.stderr)")
    #expect(try summary(hold.stdout)["state"] as? String == "on_hold")
    let active = try await ChildProcess.runDetached([
      "inspect", "google-subscription", directory + "purchases-subscriptions-v1-active.json", "--at", "1700000000000",
    ])
    #expect(try summary(active.stdout)["entitled"] as? Bool == true)
  }

  @Test("a push envelope with its real Google-signed token, checked against Google's JWKS and PEM certificates")
  func authenticatedNotification() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    for certs in [Self.jwks, Self.pemCerts] {
      let run = try await ChildProcess.runDetached([
        "inspect", "google-notification", Self.envelope, "--token", Self.token, "--certs", certs, "--audience",
        Self.audience, "--service-account", Self.serviceAccount, "--at", Self.tokenTime,
      ])
      #expect(run.status == 0, "\(run.stderr)")
      let document = try json(run.stdout)
      #expect(document["verdict"] as? String == "valid")
      let authentication = try #require(document["authentication"] as? [String: Any])
      #expect(authentication["verdict"] as? String == "valid")
      #expect(authentication["email"] as? String == Self.serviceAccount)
      #expect(authentication["audience"] as? String == Self.audience)
      let facts = try summary(run.stdout)
      #expect(facts["kind"] as? String == "subscription")
      #expect(facts["notificationType"] as? Int == 2)
      #expect(facts["messageId"] as? String == "1234567890")
      #expect(!run.stdout.contains(try Vectors.trimmed("google/oidc-google-auth-library-java/" + Self.tokenFile)))
    }

    // The real envelope Pub/Sub delivered (its data is not a notification) with the real token.
    let real = try await ChildProcess.runDetached([
      "inspect", "google-notification", Self.vectors + "rtdn-imdhemy-real/pubsub-push-envelope-non-json-data.json",
      "--token", Self.token, "--certs", Self.pemCerts, "--audience", Self.audience, "--at", Self.tokenTime,
    ])
    #expect(real.status == 1)
    let document = try json(real.stdout)
    #expect(document["error"] as? String == "not_a_developer_notification")
    #expect((document["authentication"] as? [String: Any])?["verdict"] as? String == "valid")
    #expect(try summary(real.stdout)["messageId"] as? String == "1838996669366530")
  }

  static let tokenFile = "google-id-token-rs256-service-account-2020-04-23.txt"

  @Test("a token for another audience, expired, forged, or of another key: exit 1 with the reason")
  func refusedTokens() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    var parts = try Vectors.trimmed("google/oidc-google-auth-library-java/" + Self.tokenFile).split(separator: ".")
      .map(String.init)
    let claims =
      #"{"aud":"https://example.com/path","email":"attacker@evil.example","email_verified":true,"#
      + #""exp":1587629888,"iat":1587626288,"iss":"https://accounts.google.com"}"#
    parts[1] = Base64URL.encode(Array(claims.utf8))
    let forged = dir.file("forged.txt")
    try parts.joined(separator: ".").write(toFile: forged, atomically: true, encoding: .utf8)

    let cases: [(token: String, audience: String, at: String, error: String)] = [
      (Self.token, "https://tollgate.example/notifications/google", Self.tokenTime, "invalid_audience"),
      (Self.token, Self.audience, "1587640000000", "expired"),
      (forged, Self.audience, Self.tokenTime, "signature_mismatch"),
      (
        Self.oidc + "google-id-token-rs256-cloudtasks-2022-08-19-kid-not-in-jwks.txt", Self.audience, "1660877073000",
        "unknown_key"
      ),
    ]
    for item in cases {
      let run = try await ChildProcess.runDetached([
        "inspect", "google-notification", Self.envelope, "--token", item.token, "--certs", Self.jwks, "--audience",
        item.audience, "--at", item.at,
      ])
      #expect(run.status == 1, "\(item.error): \(run.stderr)")
      let document = try json(run.stdout)
      #expect(document["verdict"] as? String == "invalid")
      #expect(document["error"] as? String == item.error)
      #expect((document["authentication"] as? [String: Any])?["error"] as? String == item.error)
    }
  }

  @Test("bare notifications and real base64 message.data need no token")
  func bareNotifications() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let data = try await ChildProcess.runDetached([
      "inspect", "google-notification",
      Self.vectors + "rtdn-imdhemy-real/rtdn-subscription-expired-type13-20201018.b64",
    ])
    #expect(data.status == 0, "\(data.stderr)")
    #expect(try summary(data.stdout)["notificationType"] as? Int == 13)
    let voided = try await ChildProcess.runDetached([
      "inspect", "google-notification", Self.vectors + "aporat-rtdn/rtdn-voided-purchase-subscription-full-refund.json",
    ])
    #expect(voided.status == 0)
    #expect(try summary(voided.stdout)["kind"] as? String == "voidedPurchase")
  }

  @Test("Play Billing signatures: a real one verifies over the exact bytes; a wrong one is exit 1")
  func purchase() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let real = Self.vectors + "play-billing-signature-voltrue2/"
    let valid = try await ChildProcess.runDetached([
      "inspect", "google-purchase", real + "inapp_purchase_data.json", "--public-key", real + "license_public_key.b64",
      "--signature", real + "signature.b64",
    ])
    #expect(valid.status == 0, "\(valid.stderr)")
    #expect(
      (try json(valid.stdout)["payload"] as? [String: Any])?["productId"] as? String
        == "topdox_android_monthly_subscription")

    let goIAP = Self.vectors + "play-billing-signature/"
    let wrong = try await ChildProcess.runDetached([
      "inspect", "google-purchase", goIAP + "inapp_purchase_data.json", "--public-key",
      goIAP + "license_public_key.b64",
      "--signature", goIAP + "signature_invalid.b64",
    ])
    #expect(wrong.status == 1)
    #expect(try json(wrong.stdout)["error"] as? String == "signature_mismatch")

    // The same data with a trailing newline is other bytes.
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let changed = dir.file("data.json")
    try Data(try Vectors.bytes("google/play-billing-signature-voltrue2/inapp_purchase_data.json") + [0x0A]).write(
      to: URL(fileURLWithPath: changed))
    let newline = try await ChildProcess.runDetached([
      "inspect", "google-purchase", changed, "--public-key", real + "license_public_key.b64", "--signature",
      real + "signature.b64",
    ])
    #expect(newline.status == 1)
  }

  @Test("unreadable files, input in no form the command reads, and bad usage exit 2")
  func exitTwo() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    func write(_ name: String, _ text: String) throws -> String {
      try text.write(toFile: dir.file(name), atomically: true, encoding: .utf8)
      return dir.file(name)
    }
    let missing = "/nonexistent/file"
    let resource = try write("resource.json", #"{"subscriptionState": "SUBSCRIPTION_STATE_ACTIVE"}"#)
    let notification = try write("rtdn.json", #"{"packageName": "a", "testNotification": {}}"#)
    let key = try write("key.b64", "AAAA")
    let runs: [(arguments: [String], reason: String)] = [
      (["google-subscription", missing], "cannot read"),
      (["google-subscription", try write("a.txt", "not json")], "not a JSON object"),
      (["google-subscription", resource, "--at", "soon"], "invalid for '--at"),
      (["google-notification", missing], "cannot read"),
      (["google-notification", try write("b.txt", "%%% neither %%%")], "neither JSON nor base64"),
      (["google-notification", try write("c.json", #"{"hello": "world"}"#)], "neither a Pub/Sub push envelope"),
      (["google-notification", notification, "--token", missing], "--token needs --certs and --audience"),
      (["google-notification", notification, "--audience", "x"], "give --token too"),
      (
        ["google-notification", notification, "--token", missing, "--certs", resource, "--audience", "x"],
        "cannot read"
      ),
      (
        [
          "google-notification", notification, "--token", try write("t.txt", "a.b.c"), "--certs", resource,
          "--audience", "x",
        ], "no RSA key"
      ),
      (["google-purchase", resource, "--signature", key], "Missing expected argument '--public-key"),
      (["google-purchase", resource, "--public-key", key, "--signature", key], "not a licensing key"),
      (["google-purchase", missing, "--public-key", key, "--signature", key], "cannot read"),
    ]
    for run in runs {
      let result = try await ChildProcess.runDetached(["inspect"] + run.arguments)
      #expect(result.status == 2, "\(run.arguments): \(result.stdout) \(result.stderr)")
      #expect(result.stdout.isEmpty, "\(run.arguments)")
      #expect(result.stderr.contains(run.reason), "\(run.arguments): \(result.stderr)")
    }
  }

  @Test("a signature that is not base64, and purchase data that is not JSON, exit 2")
  func purchaseExitTwo() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let real = Self.vectors + "play-billing-signature-voltrue2/"
    let bad = dir.file("sig.txt")
    try "not base64!".write(toFile: bad, atomically: true, encoding: .utf8)
    let signature = try await ChildProcess.runDetached([
      "inspect", "google-purchase", real + "inapp_purchase_data.json", "--public-key", real + "license_public_key.b64",
      "--signature", bad,
    ])
    #expect(signature.status == 2)
    #expect(signature.stderr.contains("not base64"))
    let data = try await ChildProcess.runDetached([
      "inspect", "google-purchase", real + "signature.b64", "--public-key", real + "license_public_key.b64",
      "--signature", real + "signature.b64",
    ])
    #expect(data.status == 2)
    #expect(data.stderr.contains("not a JSON object"))
  }
}

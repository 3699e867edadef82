import AsyncHTTPClient
import Foundation
import GooglePlay
import StoreSimulator
import Testing
import TollgateCore
import TollgateCrypto

/// The Google endpoints through the production clients: OAuth token endpoint, Android Publisher
/// API, JWKS and the OIDC-authenticated pushes.
@Suite("Store simulator, Google Play: API, OAuth and JWKS")
struct StoreSimulatorGoogleAPITests {
  @Test("the token provider gets a token with the written key; the API answers subscriptionsv2 with it")
  func tokenAndSubscription() async throws {
    try await GoogleHarness.run { harness in
      let purchase = try await harness.sim.googlePurchase(
        GooglePurchaseRequest(productId: "com.example.monthly", offer: "trial", obfuscatedExternalAccountId: "user-7"))
      #expect(purchase.purchaseToken.count > 100)
      // The Play Billing purchase data verifies with the licensing key, over its exact bytes.
      let billing = try PlayBillingSignatureVerifier(licensingKeyBase64: harness.sim.googleLicensingKeyBase64)
      #expect(throws: Never.self) {
        try billing.verify(purchaseData: Array(purchase.originalJson.utf8), signatureBase64: purchase.signature).get()
      }
      #expect(
        throws: PlayBillingSignatureVerifier.Failure.self,
        performing: {
          try billing.verify(
            purchaseData: Array((purchase.originalJson + " ").utf8), signatureBase64: purchase.signature
          )
          .get()
        })
      let data = try #require(
        try JSONSerialization.jsonObject(with: Data(purchase.originalJson.utf8)) as? [String: Any])
      #expect(data["purchaseToken"] as? String == purchase.purchaseToken)
      #expect(data["obfuscatedAccountId"] as? String == "user-7")
      #expect(purchase.purchaseToken.allSatisfy { $0.isLetter || $0.isNumber || "._-".contains($0) })
      let resource = try await harness.subscriptionV2(purchase.purchaseToken)
      #expect(resource.kind == "androidpublisher#subscriptionPurchaseV2")
      #expect(resource.typedSubscriptionState == .active)
      #expect(resource.typedAcknowledgementState == .pending)
      #expect(resource.externalAccountIdentifiers?.obfuscatedExternalAccountId == "user-7")
      #expect(resource.startTime == GoogleHarness.startMs)
      #expect(resource.testPurchase == nil)
      #expect(resource.regionCode == "US")
      let item = try #require(resource.lineItems?.first)
      #expect(item.productId == "com.example.monthly")
      #expect(item.expiryTime == GoogleHarness.startMs + 7 * SimDuration.dayMs)
      #expect(item.autoRenewingPlan?.autoRenewEnabled == true)
      #expect(item.autoRenewingPlan?.recurringPrice?.amountMicros == 9_990_000)
      #expect(item.offerDetails?.basePlanId == "monthly" && item.offerDetails?.offerId == "free-trial")
      #expect(item.offerPhase?.freeTrial != nil)
      #expect(item.latestSuccessfulOrderId == purchase.orderId && resource.latestOrderId == purchase.orderId)
      #expect(purchase.orderId.hasPrefix("GPA."))
      // The raw JSON has RFC 3339 times with milliseconds.
      let raw = try await harness.api.subscriptionV2(
        packageName: GoogleHarness.packageName, purchaseToken: purchase.purchaseToken)
      #expect(String(decoding: raw, as: UTF8.self).contains("\"startTime\":\"2026-01-01T00:00:00.000Z\""))
    }
  }

  @Test("the token endpoint refuses a forged key, a wrong scope and a stale assertion as Google does")
  func tokenRefusals() async throws {
    try await GoogleHarness.run { harness in
      let path = try #require(harness.sim.googleServiceAccountKeyPath)
      var file = try #require(
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
      file["private_key"] = try RSAPrivateKey.generate().pkcs8PEM()
      let forged = try ServiceAccountKey(json: Array(try JSONSerialization.data(withJSONObject: file)))
      let provider = GoogleAccessTokenProvider(
        key: forged, httpClient: .shared, now: { NotificationDispatcherClock.realNowMs() }, logger: GoogleHarness.logger
      )
      await #expect(throws: GoogleAuthError.self) { _ = try await provider.accessToken() }
      do {
        _ = try await provider.accessToken()
      } catch let error as GoogleAuthError {
        #expect(error.code == .invalidGrant && error.httpStatus == 400)
      }

      let key = try ServiceAccountKey.load(from: .file(path), environment: [:])
      let wrongScope = GoogleAccessTokenProvider(
        key: key, scope: "https://www.googleapis.com/auth/cloud-platform", httpClient: .shared,
        now: { NotificationDispatcherClock.realNowMs() }, logger: GoogleHarness.logger)
      do {
        _ = try await wrongScope.accessToken()
        Issue.record("a token for another scope was granted")
      } catch let error as GoogleAuthError {
        #expect(error.code == .rejected && error.httpStatus == 400)
      }

      let stale = GoogleAccessTokenProvider(
        key: key, httpClient: .shared, now: { NotificationDispatcherClock.realNowMs() - 400 * SimDuration.dayMs },
        logger: GoogleHarness.logger)
      do {
        _ = try await stale.accessToken()
        Issue.record("an assertion a year old was accepted")
      } catch let error as GoogleAuthError {
        #expect(error.code == .invalidGrant)
      }
    }
  }

  @Test("API errors in Google's shape: 401 without a valid token, 404, 400 for another package, 410 after 60 days")
  func apiErrors() async throws {
    let twoApps = { (config: inout StoreSimulator.Config) in
      config.google.apps.append(StoreSimulator.GoogleApp(packageName: "com.example.other"))
    }
    try await GoogleHarness.run(configure: twoApps) { harness in
      let purchase = try await harness.sim.googlePurchase(
        GooglePurchaseRequest(
          productId: "com.example.monthly", packageName: GoogleHarness.packageName, acknowledged: true))
      let token = purchase.purchaseToken
      let bogus = AndroidPublisherClient(
        config: .init(baseURL: harness.sim.googleAPIBaseURL), httpClient: .shared, accessToken: { "ya29.bogus" },
        logger: GoogleHarness.logger)
      await expectAPIError(.unauthorized, status: 401, reason: "authError") {
        _ = try await bogus.subscriptionV2(packageName: GoogleHarness.packageName, purchaseToken: token)
      }
      await expectAPIError(.notFound, status: 404, reason: "purchaseTokenNotFound") {
        _ = try await harness.api.subscriptionV2(packageName: GoogleHarness.packageName, purchaseToken: "abc.AO-J1Ox")
      }
      await expectAPIError(.badRequest, status: 400, reason: "purchaseTokenDoesNotMatchPackageName") {
        _ = try await harness.api.subscriptionV2(packageName: "com.example.other", purchaseToken: token)
      }
      try await harness.sim.googleCancel(token)
      try await harness.sim.advance(byMs: 30 * SimDuration.dayMs)
      #expect(try await harness.subscriptionV2(token).typedSubscriptionState == .expired)
      try await harness.sim.advance(byMs: 60 * SimDuration.dayMs)
      #expect(try await harness.subscriptionV2(token).typedSubscriptionState == .expired)
      try await harness.sim.advance(byMs: 1)
      await expectAPIError(.gone, status: 410, reason: "subscriptionPurchaseNoLongerAvailable") {
        _ = try await harness.api.subscriptionV2(packageName: GoogleHarness.packageName, purchaseToken: token)
      }
    }
  }

  @Test("one-time products: productsv2 and products.get, acknowledge, and the acknowledgement state")
  func oneTimeProduct() async throws {
    try await GoogleHarness.run { harness in
      let purchase = try await harness.sim.googlePurchase(
        GooglePurchaseRequest(
          productId: "com.example.lifetime", obfuscatedExternalAccountId: "user-9", testPurchase: true))
      #expect(purchase.productType == "oneTimeProduct")
      let v2 = try JSONDecoder().decode(
        ProductPurchaseV2.self,
        from: try await harness.api.productV2(
          packageName: GoogleHarness.packageName, purchaseToken: purchase.purchaseToken))
      #expect(v2.purchaseStateContext?.typedPurchaseState == .purchased)
      #expect(v2.productLineItem?.first?.productId == "com.example.lifetime")
      #expect(v2.isTestPurchase && v2.typedAcknowledgementState == .pending)
      #expect(v2.obfuscatedExternalAccountId == "user-9" && v2.orderId == purchase.orderId)
      try await harness.api.acknowledgeProduct(
        packageName: GoogleHarness.packageName, productId: "com.example.lifetime", purchaseToken: purchase.purchaseToken
      )
      let v1 = try JSONDecoder().decode(
        ProductPurchase.self,
        from: try await harness.api.product(
          packageName: GoogleHarness.packageName, productId: "com.example.lifetime",
          purchaseToken: purchase.purchaseToken))
      #expect(v1.typedPurchaseState == .purchased && v1.isAcknowledged == true && v1.typedPurchaseType == .test)
      #expect(v1.purchaseTimeMillis == GoogleHarness.startMs)
      let mapping = GooglePlayMapping(
        productV2: v2, purchaseToken: purchase.purchaseToken, packageName: GoogleHarness.packageName,
        asOfMs: harness.sim.clockNowMs)
      let evaluation = SubscriptionLifecycle.evaluate(
        mapping.history, at: harness.sim.clockNowMs + 400 * SimDuration.dayMs)
      #expect(evaluation.isEntitled && evaluation.isSandbox)
      #expect(try harness.pushes().first?.notification.oneTimeProductNotification?.notificationType == 1)
    }
  }

  @Test("the JWKS has Google's shape and caching header; a delivered push's OIDC token verifies with it")
  func jwksAndPushAuthentication() async throws {
    try await GoogleHarness.run { harness in
      var request = HTTPClientRequest(url: harness.sim.googleJWKSURL)
      request.method = .GET
      let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
      #expect(response.headers.first(name: "Cache-Control")?.contains("max-age=21600") == true)
      let body = try await response.body.collect(upTo: 1 << 16)
      let jwks = try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
      let key = try #require((jwks["keys"] as? [[String: Any]])?.first)
      #expect(key["kty"] as? String == "RSA" && key["alg"] as? String == "RS256" && key["use"] as? String == "sig")
      #expect(key["kid"] as? String == harness.sim.googlePushSigningKeyId && key["e"] as? String == "AQAB")
      #expect(try GoogleKeySet(json: Array(body.readableBytesView)).keys.count == 1)

      let purchase = try await harness.sim.googlePurchase(GooglePurchaseRequest(productId: "com.example.monthly"))
      let push = try #require(try harness.pushes().first)
      #expect(push.envelope.subscription == "projects/tollgate-sim/subscriptions/play-rtdn-push")
      #expect(push.envelope.message?.messageId?.isEmpty == false)
      #expect(push.envelope.message?.publishTime == GoogleHarness.startMs)
      #expect(push.notification.version == "1.0" && push.notification.packageName == GoogleHarness.packageName)
      #expect(push.notification.eventTimeMillis == GoogleHarness.startMs)
      let sub = try #require(push.notification.subscriptionNotification)
      #expect(sub.notificationType == 4 && sub.purchaseToken == purchase.purchaseToken)
      #expect(sub.subscriptionId == "com.example.monthly")
      let claims = try await harness.authenticator().authenticate(authorization: push.authorization).get()
      #expect(claims.email == StoreSimulator.GoogleApp().pushServiceAccount && claims.emailVerified == true)
      #expect(claims.audiences == [GoogleHarness.audience] && claims.iss == "https://accounts.google.com")
      // Another push service account, or a forged token, is refused.
      let other = await harness.authenticator(serviceAccount: "someone@else.iam.gserviceaccount.com")
        .authenticate(authorization: push.authorization)
      #expect(throws: OIDCVerificationError.self) { try other.get() }
      let tampered = push.authorization.map { $0.dropLast(4) + "AAAA" }.map(String.init)
      let forged = await harness.authenticator().authenticate(authorization: tampered)
      #expect(throws: OIDCVerificationError.self) { try forged.get() }
    }
  }

  @Test("the test notification carries testNotification and no purchase")
  func testNotification() async throws {
    try await GoogleHarness.run { harness in
      try await harness.sim.googleSendTestNotification()
      let push = try #require(try harness.pushes().first)
      #expect(push.notification.kind == .test && push.notification.purchaseToken == nil)
    }
  }
}

/// Runs `body` and expects the Android Publisher error it throws to have `code`, `status`, `reason`.
func expectAPIError(
  _ code: AndroidPublisherError.Code, status: Int, reason: String, _ body: () async throws -> Void,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  do {
    try await body()
    Issue.record("expected \(code)", sourceLocation: sourceLocation)
  } catch let error as AndroidPublisherError {
    #expect(error.code == code, sourceLocation: sourceLocation)
    #expect(error.httpStatus == status, sourceLocation: sourceLocation)
    #expect(error.reason == reason, sourceLocation: sourceLocation)
  } catch {
    Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
  }
}

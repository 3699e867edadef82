import Foundation

/// The Google Play side of the simulator, from Swift: where production code should point, and
/// the scenarios (the control API under `/sim/google/…` calls the same methods).
extension StoreSimulator {
  // MARK: Where to point the production Google code

  /// `AndroidPublisherConfig.baseURL` (Google: `https://androidpublisher.googleapis.com`).
  public var googleAPIBaseURL: String { baseURL }
  /// The OAuth token endpoint (Google: `https://oauth2.googleapis.com/token`): the key file's
  /// `token_uri`.
  public var googleTokenURI: String { baseURL + "/token" }
  /// The JWKS of the push tokens' signing key (Google: `https://www.googleapis.com/oauth2/v3/certs`).
  public var googleJWKSURL: String { baseURL + "/oauth2/v3/certs" }
  /// `DIR/google-service-account.json` (with `token_uri` = `googleTokenURI`), or `nil` without a
  /// data directory (then use `googleServiceAccountKeyJSON`).
  public var googleServiceAccountKeyPath: String? { googleKeyFilePath.withLock { $0 } }
  /// The service account's JSON key, in Google's format, `token_uri` = `googleTokenURI`.
  public var googleServiceAccountKeyJSON: String {
    String(decoding: googleCredentials.keyFileJSON(tokenURI: googleTokenURI), as: UTF8.self)
  }
  /// The service account's `client_email`.
  public var googleServiceAccountEmail: String { googleCredentials.clientEmail }
  /// The `kid` of the key that signs push tokens (the one key in the JWKS).
  public var googlePushSigningKeyId: String { googleCredentials.oidcKid }
  /// The JWKS document `googleJWKSURL` serves.
  public var googleJWKS: [UInt8] { googleCredentials.jwks }
  /// The apps' licensing key as Play Console shows it (base64 SubjectPublicKeyInfo): what checks
  /// a purchase's `originalJson` against its `signature` (a worker's `licensingKey`).
  public var googleLicensingKeyBase64: String { googleCredentials.licensingKeyBase64 }

  // MARK: Scenarios

  public func googlePurchase(_ request: GooglePurchaseRequest) async throws(StoreSimulatorError)
    -> GooglePurchaseResult
  {
    try await mutate { (state: inout State) throws(StoreSimulatorError) in
      try state.google.purchase(request, core: &state.core)
    }
  }

  /// A subscription's or one-time purchase's state.
  public func googlePurchaseSnapshot(_ purchaseToken: String) throws(StoreSimulatorError) -> GooglePurchaseSnapshot {
    try state.withLock { (state: inout State) throws(StoreSimulatorError) in try state.google.snapshot(purchaseToken) }
  }

  /// A subscription's state (`notFound` for a one-time purchase token).
  public func googleSubscription(_ purchaseToken: String) throws(StoreSimulatorError) -> GooglePurchaseSnapshot {
    let snapshot = try googlePurchaseSnapshot(purchaseToken)
    guard snapshot.productType == "subscription" else { throw .notFound("not a Google subscription token") }
    return snapshot
  }

  /// The app acknowledges through the Play Billing Library (the API's acknowledge does the same).
  @discardableResult
  public func googleAcknowledge(_ purchaseToken: String) async throws(StoreSimulatorError) -> GooglePurchaseSnapshot {
    try await googleChange(purchaseToken) { store, _ throws(StoreSimulatorError) in try store.acknowledge(purchaseToken)
    }
  }

  @discardableResult
  public func googleCancel(_ purchaseToken: String) async throws(StoreSimulatorError) -> GooglePurchaseSnapshot {
    try await googleChange(purchaseToken) { store, core throws(StoreSimulatorError) in
      try store.cancel(purchaseToken, core: &core)
    }
  }

  @discardableResult
  public func googleRestart(_ purchaseToken: String) async throws(StoreSimulatorError) -> GooglePurchaseSnapshot {
    try await googleChange(purchaseToken) { store, core throws(StoreSimulatorError) in
      try store.restart(purchaseToken, core: &core)
    }
  }

  @discardableResult
  public func googleFailRenewals(_ purchaseToken: String) async throws(StoreSimulatorError) -> GooglePurchaseSnapshot {
    try await googleChange(purchaseToken) { store, _ throws(StoreSimulatorError) in
      try store.failRenewals(purchaseToken)
    }
  }

  @discardableResult
  public func googleRecoverPayment(_ purchaseToken: String) async throws(StoreSimulatorError)
    -> GooglePurchaseSnapshot
  {
    try await googleChange(purchaseToken) { store, core throws(StoreSimulatorError) in
      _ = try store.recoverPayment(purchaseToken, core: &core)
    }
  }

  /// Schedules a pause of `durationMs` from the next renewal.
  @discardableResult
  public func googlePause(_ purchaseToken: String, durationMs: Int64) async throws(StoreSimulatorError)
    -> GooglePurchaseSnapshot
  {
    try await googleChange(purchaseToken) { store, core throws(StoreSimulatorError) in
      try store.pause(purchaseToken, durationMs: durationMs, core: &core)
    }
  }

  @discardableResult
  public func googleResume(_ purchaseToken: String) async throws(StoreSimulatorError) -> GooglePurchaseSnapshot {
    try await googleChange(purchaseToken) { store, core throws(StoreSimulatorError) in
      _ = try store.resume(purchaseToken, core: &core)
    }
  }

  /// Upgrade (immediate: the snapshot's `replacedByToken` is the new token) or downgrade
  /// (`DEFERRED`: `deferredReplacementProductId` until the renewal). Without a mode, a pricier
  /// product is an immediate `CHARGE_PRORATED_PRICE` upgrade and a cheaper one deferred.
  @discardableResult
  public func googleChangeProduct(_ purchaseToken: String, to productId: String, replacementMode: String? = nil)
    async throws(StoreSimulatorError) -> GooglePurchaseSnapshot
  {
    try await googleChange(purchaseToken) { store, core throws(StoreSimulatorError) in
      _ = try store.changeProduct(purchaseToken, to: productId, mode: replacementMode, core: &core)
    }
  }

  /// Refund, revocation or chargeback (`voidedReason` 7) of a purchase token's latest order:
  /// revoked, it is listed by voidedpurchases.list and notified; with `revoke` false (a refund
  /// that keeps access) it is neither, as at Google.
  /// - Parameters:
  ///   - voidedReason: 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental, 5 fraud, 6 friendly fraud, 7 chargeback.
  ///   - voidedSource: 0 user, 1 developer, 2 Google.
  @discardableResult
  public func googleRefund(
    _ purchaseToken: String, voidedReason: Int = 0, voidedSource: Int = 0, revoke: Bool = true
  ) async throws(StoreSimulatorError) -> GooglePurchaseSnapshot {
    try await googleChange(purchaseToken) { store, core throws(StoreSimulatorError) in
      try store.refund(purchaseToken, reason: voidedReason, source: voidedSource, revoke: revoke, core: &core)
    }
  }

  /// A price change from the next renewal at least `noticeMs` away; an increase waits for consent.
  @discardableResult
  public func googleChangePrice(_ purchaseToken: String, newPriceMicros: Int64, noticeMs: Int64 = 0)
    async throws(StoreSimulatorError) -> GooglePurchaseSnapshot
  {
    try await googleChange(purchaseToken) { store, core throws(StoreSimulatorError) in
      try store.changePrice(purchaseToken, newPriceMicros: newPriceMicros, noticeMs: noticeMs, core: &core)
    }
  }

  /// The user consents to a price increase.
  @discardableResult
  public func googleConfirmPriceChange(_ purchaseToken: String) async throws(StoreSimulatorError)
    -> GooglePurchaseSnapshot
  {
    try await googleChange(purchaseToken) { store, core throws(StoreSimulatorError) in
      try store.confirmPriceChange(purchaseToken, core: &core)
    }
  }

  /// The Play Console's "Send test notification".
  public func googleSendTestNotification(packageName: String? = nil) async throws(StoreSimulatorError) {
    try await mutate { (state: inout State) throws(StoreSimulatorError) in
      let app = try state.google.app(packageName)
      state.google.notifyTest(packageName: app.packageName, core: &state.core)
    }
  }

  /// The `Authorization` header value the app's push subscription sends with a push now: a
  /// Google-signed OIDC token for its audience and service account, not tied to any body. What
  /// an attacker holds after capturing one genuine push (tests of what a push may and may not do).
  public func googlePushAuthorization(packageName: String? = nil) async throws(StoreSimulatorError) -> String {
    let token = try state.withLock { (state: inout State) throws(StoreSimulatorError) in
      try state.google.pushToken(packageName)
    }
    guard let token else { throw .conflict("the app has no notificationURL: it receives no pushes") }
    return "Bearer \(await token.mint())"
  }

  /// Runs `change` on the Google store, then answers the token's snapshot.
  private func googleChange(
    _ purchaseToken: String, _ change: (inout GoogleStore, inout SimCore) throws(StoreSimulatorError) -> Void
  ) async throws(StoreSimulatorError) -> GooglePurchaseSnapshot {
    try await mutate { (state: inout State) throws(StoreSimulatorError) in
      try change(&state.google, &state.core)
      return try state.google.snapshot(purchaseToken)
    }
  }
}

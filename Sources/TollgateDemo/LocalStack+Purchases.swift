import StoreSimulator
import TollgateClient

/// Buying in the simulated stores and submitting what the app got through the service.
extension LocalStack {
  /// Buys `productId` in the simulator.
  public func buy(_ productId: String = premium, offer: String? = nil, environment: String = "Sandbox") async throws
    -> ApplePurchaseResult
  {
    try await sim.purchase(
      ApplePurchaseRequest(productId: productId, bundleId: Self.bundleId, offer: offer, environment: environment))
  }

  /// Buys `productId` on the simulated Google Play, as the app's Billing Library would.
  public func googleBuy(
    _ productId: String = premium, offer: String? = nil, accountId: String? = nil, testPurchase: Bool = false
  ) async throws -> GooglePurchaseResult {
    try await sim.googlePurchase(
      GooglePurchaseRequest(
        productId: productId, packageName: Self.packageName, offer: offer, obfuscatedExternalAccountId: accountId,
        testPurchase: testPurchase ? true : nil))
  }

  /// Submits a Google Play purchase for `userId` through the service, with the Play Billing data
  /// and signature the app got, waiting for the verdict and then for the worker's
  /// acknowledgement to reach the simulator (it follows the verdict: a clock jump in between
  /// would pass Google's 3-day deadline first).
  public func googleSubmit(_ purchase: GooglePurchaseResult, userId: String) async throws
    -> Tollgate_V1_SubmitPurchaseResponse
  {
    let response = try await googleSubmit(
      purchaseToken: purchase.purchaseToken, productId: purchase.productId, userId: userId,
      billing: (purchase.originalJson, purchase.signature))
    if response.status == .verified { try await awaitAcknowledgement(purchase.purchaseToken) }
    return response
  }

  /// Waits (up to `timeout`) until the simulator has the purchase acknowledged.
  public func awaitAcknowledgement(_ purchaseToken: String, timeout: Duration = .seconds(5)) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
      if try sim.googlePurchaseSnapshot(purchaseToken).acknowledged { return }
      try await Task.sleep(for: .milliseconds(10))
    }
  }

  /// Submits a Google Play purchase token for `userId` through the service (and the Play Billing
  /// data and signature, when given), waiting for the verdict.
  public func googleSubmit(
    purchaseToken: String, productId: String, userId: String, billing: (purchaseData: String, signature: String)? = nil
  ) async throws -> Tollgate_V1_SubmitPurchaseResponse {
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = userId
    request.store = .googlePlay
    request.purchaseToken = purchaseToken
    request.productID = productId
    request.appID = Self.packageName
    if let billing {
      request.googlePurchaseData = billing.purchaseData
      request.googleSignature = billing.signature
    }
    request.waitMs = 8_000
    return try await client.submitPurchase(request, timeout: .seconds(10))
  }

  /// Buys `sku` on the simulated Amazon Appstore, as the app's IAP SDK would; `amazonUserId`
  /// names the Amazon customer (a new one when nil).
  public func amazonBuy(_ sku: String = premium, amazonUserId: String? = nil, freeTrial: Bool = false) async throws
    -> AmazonPurchaseResult
  {
    try await sim.amazonPurchase(
      AmazonPurchaseRequest(
        sku: sku, appPackageName: Self.amazonApp, userId: amazonUserId, freeTrial: freeTrial ? true : nil))
  }

  /// Submits an Amazon receipt id, with the Amazon user id that owns it, for `userId` through the
  /// service, waiting for the verdict.
  public func amazonSubmit(receiptId: String, amazonUserId: String, userId: String) async throws
    -> Tollgate_V1_SubmitPurchaseResponse
  {
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = userId
    request.store = .amazon
    request.receiptID = receiptId
    request.amazonUserID = amazonUserId
    request.appID = Self.amazonApp
    request.waitMs = 8_000
    return try await client.submitPurchase(request, timeout: .seconds(10))
  }

  /// Submits purchase evidence for `userId` through the service, waiting for the verdict.
  public func submit(_ receipt: String, userId: String) async throws -> Tollgate_V1_SubmitPurchaseResponse {
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = userId
    request.store = .appStore
    request.receipt = receipt
    request.waitMs = 8_000
    return try await client.submitPurchase(request, timeout: .seconds(10))
  }
}

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The Android Publisher API v3 purchase endpoints, under
/// `/androidpublisher/v3/applications/{packageName}/purchases/…`, each behind a bearer token the
/// simulated token endpoint issued and the `google.api` faults.
extension StoreSimulator {
  /// A purchase token stays readable this long after its purchase ended; then 410.
  static let googleTokenRetentionMs: Int64 = 60 * SimDuration.dayMs

  func addGoogleRoutes(to router: Router<SimRequestContext>) {
    addGoogleAuthRoutes(to: router)
    addGoogleControlRoutes(to: router)
    let base = "/androidpublisher/v3/applications/:packageName/purchases"
    route(router, .get, base + "/subscriptionsv2/tokens/:token") { self.subscriptionV2($0) }
    route(router, .post, base + "/subscriptionsv2/tokens/:token") { call in
      call.method == "revoke" ? await self.revoke(call) : Self.noSuchMethod
    }
    route(router, .post, base + "/subscriptions/:productId/tokens/:token") { call in
      call.method == "acknowledge" ? self.acknowledge(call, subscription: true) : Self.noSuchMethod
    }
    route(router, .get, base + "/productsv2/tokens/:token") { self.productV2($0) }
    route(router, .get, base + "/products/:productId/tokens/:token") { self.productV1($0) }
    route(router, .post, base + "/products/:productId/tokens/:token") { call in
      switch call.method {
      case "acknowledge": self.acknowledge(call, subscription: false)
      case "consume": self.consume(call)
      default: Self.noSuchMethod
      }
    }
    route(router, .get, base + "/voidedpurchases") { self.voidedPurchases($0) }
  }

  /// One API call: the package, the purchase token (percent-decoded) and the custom method after
  /// its `:` (`acknowledge`, `revoke`, …).
  struct GoogleCall: Sendable {
    var packageName: String
    var token: String
    var method: String?
    var productId: String?
    var request: Request
  }

  private func route(
    _ router: Router<SimRequestContext>, _ method: HTTPRequest.Method, _ path: String,
    _ answer: @escaping @Sendable (GoogleCall) async -> StoreAnswer
  ) {
    router.on(RouterPath(path), method: method) { request, context in
      await self.storeAnswer("google.api", request, context) { () async -> StoreAnswer in
        guard
          self.googleAccessTokens.accepts(
            authorization: request.headers[.authorization], realNowMs: NotificationDispatcher.realNowMs())
        else { return .googleUnauthenticated }
        let decode = { (name: String) in context.parameters.get(name).map { $0.removingPercentEncoding ?? $0 } }
        let packageName = decode("packageName") ?? ""
        guard self.config.google.app(packageName) != nil else {
          return .googleError(
            404, "No application was found for the given package name.", reason: "applicationNotFound")
        }
        var token = decode("token") ?? ""
        var customMethod: String?
        if let colon = token.lastIndex(of: ":") {
          customMethod = String(token[token.index(after: colon)...])
          token = String(token[..<colon])
        }
        return await answer(
          GoogleCall(
            packageName: packageName, token: token, method: customMethod, productId: decode("productId"),
            request: request))
      }
    }
  }

  static var noSuchMethod: StoreAnswer {
    .googleError(404, "Method not found.", reason: "notFound", domain: "global")
  }

  static var tokenNotFound: StoreAnswer {
    .googleError(404, "The purchase token was not found.", reason: "purchaseTokenNotFound")
  }

  /// The package check and the 60-day rule every token lookup shares.
  func googleLookup(packageOf: String?, endedAtMs: Int64?, _ call: GoogleCall, nowMs: Int64) -> StoreAnswer? {
    guard let packageName = packageOf else { return Self.tokenNotFound }
    guard packageName == call.packageName else {
      return .googleError(
        400, "The purchase token does not match the package name.", reason: "purchaseTokenDoesNotMatchPackageName")
    }
    if let ended = endedAtMs, nowMs - ended > Self.googleTokenRetentionMs {
      return .googleError(
        410, "The subscription purchase is no longer available for query because it has been expired for too long.",
        reason: "subscriptionPurchaseNoLongerAvailable")
    }
    return nil
  }

  private func subscriptionV2(_ call: GoogleCall) -> StoreAnswer {
    state.withLock { state in
      let subscription = state.google.subscriptions[call.token]
      if let refusal = googleLookup(
        packageOf: subscription?.packageName, endedAtMs: subscription?.endedAtMs, call, nowMs: state.core.nowMs)
      {
        return refusal
      }
      guard let subscription else { return Self.tokenNotFound }
      return .json(GoogleSubscriptionResource(subscription, config: config.google))
    }
  }

  private func productV2(_ call: GoogleCall) -> StoreAnswer {
    state.withLock { state in
      let product = state.google.products[call.token]
      if let refusal = googleLookup(
        packageOf: product?.packageName, endedAtMs: product?.endedAtMs, call, nowMs: state.core.nowMs)
      {
        return refusal
      }
      guard let product else { return Self.tokenNotFound }
      return .json(GoogleProductPurchaseV2Resource(product, config: config.google))
    }
  }

  private func productV1(_ call: GoogleCall) -> StoreAnswer {
    state.withLock { state in
      let product = state.google.products[call.token]
      if let refusal = googleLookup(
        packageOf: product?.packageName, endedAtMs: product?.endedAtMs, call, nowMs: state.core.nowMs)
      {
        return refusal
      }
      guard let product else { return Self.tokenNotFound }
      guard product.productId == call.productId else {
        return .googleError(400, "The product id does not match the purchase token.", reason: "productNotOwnedByUser")
      }
      return .json(GoogleProductPurchaseResource(product, config: config.google))
    }
  }
}

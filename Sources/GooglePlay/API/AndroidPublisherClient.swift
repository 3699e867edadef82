import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import TollgateCore

/// The Android Publisher API v3 endpoints Tollgate uses, over AsyncHTTPClient: the purchase
/// resources (answered as their JSON bytes, for the models to decode), acknowledgement, voided
/// purchases and revocation. Every failure is an `AndroidPublisherError`; a purchase token is
/// percent-encoded as one path segment.
public struct AndroidPublisherClient: Sendable {
  public let config: AndroidPublisherConfig
  private let httpClient: HTTPClient
  private let accessToken: @Sendable () async throws -> String
  private let logger: Logger
  static let maximumBodyBytes = 8 << 20

  /// - Parameter accessToken: an OAuth access token for the androidpublisher scope (cached by
  ///   its provider; called once per request).
  public init(
    config: AndroidPublisherConfig, httpClient: HTTPClient, accessToken: @escaping @Sendable () async throws -> String,
    logger: Logger
  ) {
    self.config = config
    self.httpClient = httpClient
    self.accessToken = accessToken
    self.logger = logger
  }

  /// `purchases.subscriptionsv2.get`: the source of truth for a subscription.
  public func subscriptionV2(packageName: String, purchaseToken: String) async throws(AndroidPublisherError) -> Data {
    try await send(.GET, "\(app(packageName))/purchases/subscriptionsv2/tokens/\(segment(purchaseToken))")
  }

  /// `purchases.subscriptions.acknowledge` (v1 path: v2 has none).
  public func acknowledgeSubscription(
    packageName: String, subscriptionId: String, purchaseToken: String, developerPayload: String? = nil
  ) async throws(AndroidPublisherError) {
    let path =
      "\(app(packageName))/purchases/subscriptions/\(segment(subscriptionId))/tokens/\(segment(purchaseToken)):acknowledge"
    _ = try await send(.POST, path, json: developerPayload.map { ["developerPayload": $0] } ?? [:])
  }

  /// `purchases.products.get`: a one-time product purchase.
  public func product(packageName: String, productId: String, purchaseToken: String) async throws(AndroidPublisherError)
    -> Data
  {
    try await send(
      .GET, "\(app(packageName))/purchases/products/\(segment(productId))/tokens/\(segment(purchaseToken))")
  }

  /// `purchases.productsv2.getproductpurchasev2`: a one-time product purchase, v2 resource.
  public func productV2(packageName: String, purchaseToken: String) async throws(AndroidPublisherError) -> Data {
    try await send(.GET, "\(app(packageName))/purchases/productsv2/tokens/\(segment(purchaseToken))")
  }

  /// `purchases.products.acknowledge`.
  public func acknowledgeProduct(packageName: String, productId: String, purchaseToken: String)
    async throws(AndroidPublisherError)
  {
    let path =
      "\(app(packageName))/purchases/products/\(segment(productId))/tokens/\(segment(purchaseToken)):acknowledge"
    _ = try await send(.POST, path, json: [:])
  }

  /// One page of `purchases.voidedpurchases.list` since `startTimeMs`, subscriptions included
  /// (`type=1`); pass the previous page's `tokenPagination.nextPageToken` as `pageToken`.
  public func voidedPurchases(
    packageName: String, startTimeMs: Int64, pageToken: String? = nil, maxResults: Int = 1_000
  )
    async throws(AndroidPublisherError) -> Data
  {
    var query = [("startTime", String(startTimeMs)), ("type", "1"), ("maxResults", String(maxResults))]
    if let pageToken { query.append(("token", pageToken)) }
    return try await send(.GET, "\(app(packageName))/purchases/voidedpurchases", query: query)
  }

  /// `purchases.subscriptionsv2.revoke` with a prorated refund: the operator's refund-and-revoke.
  public func revokeSubscriptionV2(packageName: String, purchaseToken: String) async throws(AndroidPublisherError) {
    let path = "\(app(packageName))/purchases/subscriptionsv2/tokens/\(segment(purchaseToken)):revoke"
    _ = try await send(.POST, path, json: ["revocationContext": ["proratedRefund": [String: String]()]])
  }

  // MARK: Requests

  private func app(_ packageName: String) -> String { "/androidpublisher/v3/applications/\(segment(packageName))" }

  /// `value` as one path segment: everything but RFC 3986's unreserved characters escaped.
  func segment(_ value: String) -> String {
    value.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? value
  }

  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

  private func send(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], json: [String: Any]? = nil)
    async throws(AndroidPublisherError) -> Data
  {
    let token: String
    do {
      token = try await accessToken()
    } catch let error as GoogleAuthError where error.isTransient {
      // The token endpoint is down or answered nonsense: Google's trouble, retried.
      throw AndroidPublisherError(code: .transport, message: "no access token yet: \(error.message)", cause: error)
    } catch {
      throw AndroidPublisherError(
        code: .credentials, message: "no access token for the Android Publisher API", cause: error)
    }
    var url = config.baseURL + path
    if !query.isEmpty { url += "?" + query.map { "\($0.0)=\(segment($0.1))" }.joined(separator: "&") }
    var request = HTTPClientRequest(url: url)
    request.method = method
    request.headers.add(name: "Authorization", value: "Bearer \(token)")
    request.headers.add(name: "Accept", value: "application/json")
    if let json {
      request.headers.add(name: "Content-Type", value: "application/json")
      let body = (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])) ?? Data("{}".utf8)
      request.body = .bytes(ByteBuffer(bytes: body))
    }
    let endpoint = path.split(separator: "/").dropFirst(4).first.map(String.init) ?? path
    let status: Int
    let headers: HTTPHeaders
    let body: Data
    do {
      let response = try await httpClient.execute(request, timeout: .nanoseconds(config.timeout.nanoseconds))
      let collected = try await response.body.collect(upTo: Self.maximumBodyBytes)
      (status, headers, body) = (Int(response.status.code), response.headers, Data(collected.readableBytesView))
    } catch {
      throw AndroidPublisherError(code: .transport, message: "no answer from the Android Publisher API", cause: error)
    }
    if (200..<300).contains(status) { return body }
    let problem = try? JSONDecoder().decode(GoogleAPIErrorResponse.self, from: body)
    let code: AndroidPublisherError.Code =
      switch status {
      case 400: .badRequest
      case 401: .unauthorized
      case 403: .forbidden
      case 404: .notFound
      case 410: .gone
      case 429: .rateLimited
      case 500...599: .serverError
      default: .badRequest
      }
    let reason = problem?.reason
    logger.debug(
      "Android Publisher API refused",
      metadata: ["http.status": "\(status)", "google.reason": "\(reason ?? "")", "google.endpoint": "\(endpoint)"])
    throw AndroidPublisherError(
      code: code, message: problem?.error?.message ?? "HTTP \(status)", httpStatus: status, reason: reason,
      retryAfterMs: headers.first(name: "Retry-After").flatMap(RetryAfter.milliseconds))
  }
}

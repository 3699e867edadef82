import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import TollgateCore

/// The App Store Server API endpoints Tollgate uses, over AsyncHTTPClient. Every call signs a
/// fresh bearer token, decodes Apple's JSON, and turns every failure into an `AppStoreAPIError`
/// the caller can act on. Signed payloads in the answers are returned as they came: verify them
/// with `SignedDataVerifier` before trusting them.
public struct AppStoreServerAPIClient: Sendable {
  public let config: AppStoreServerAPIConfig
  private let httpClient: HTTPClient
  private let bearerToken: @Sendable () throws -> String
  private let logger: Logger

  /// - Parameter bearerToken: makes the ES256 token for one request (see `AppStoreServerAPIToken`).
  public init(
    config: AppStoreServerAPIConfig, httpClient: HTTPClient, bearerToken: @escaping @Sendable () throws -> String,
    logger: Logger
  ) {
    self.config = config
    self.httpClient = httpClient
    self.bearerToken = bearerToken
    self.logger = logger
  }

  /// Get All Subscription Statuses: `GET /inApps/v1/subscriptions/{transactionId}`.
  public func getAllSubscriptionStatuses(transactionId: String) async throws(AppStoreAPIError)
    -> AppStoreServerAPI.StatusResponse
  {
    try await get("/inApps/v1/subscriptions/\(escaped(transactionId))")
  }

  /// Get Transaction History (v2), one page: `GET /inApps/v2/history/{transactionId}`.
  public func getTransactionHistory(transactionId: String, revision: String? = nil) async throws(AppStoreAPIError)
    -> AppStoreServerAPI.HistoryResponse
  {
    var query = [("sort", "ASCENDING")]
    if let revision { query.append(("revision", revision)) }
    return try await get("/inApps/v2/history/\(escaped(transactionId))", query: query)
  }

  /// Every signed transaction of the chain, following `revision` while `hasMore` (bounded).
  public func getAllTransactions(transactionId: String, maximumPages: Int = 100) async throws(AppStoreAPIError)
    -> [String]
  {
    var signed: [String] = []
    var revision: String?
    for _ in 0..<maximumPages {
      let page = try await getTransactionHistory(transactionId: transactionId, revision: revision)
      signed += page.signedTransactions ?? []
      guard page.hasMore == true, let next = page.revision, next != revision else { return signed }
      revision = next
    }
    throw AppStoreAPIError(
      code: .invalidResponse, message: "transaction history did not end after \(maximumPages) pages")
  }

  /// Get Transaction Info: `GET /inApps/v1/transactions/{transactionId}`.
  public func getTransactionInfo(transactionId: String) async throws(AppStoreAPIError)
    -> AppStoreServerAPI.TransactionInfoResponse
  {
    try await get("/inApps/v1/transactions/\(escaped(transactionId))")
  }

  /// Look Up Order ID: `GET /inApps/v1/lookup/{orderId}`.
  public func lookUpOrderId(_ orderId: String) async throws(AppStoreAPIError) -> AppStoreServerAPI.OrderLookupResponse {
    try await get("/inApps/v1/lookup/\(escaped(orderId))")
  }

  /// Get Refund History (v2), one page: `GET /inApps/v2/refund/lookup/{transactionId}`.
  public func getRefundHistory(transactionId: String, revision: String? = nil) async throws(AppStoreAPIError)
    -> AppStoreServerAPI.RefundHistoryResponse
  {
    try await get(
      "/inApps/v2/refund/lookup/\(escaped(transactionId))", query: revision.map { [("revision", $0)] } ?? [])
  }

  private func get<Body: Decodable>(_ path: String, query: [(String, String)] = []) async throws(AppStoreAPIError)
    -> Body
  {
    let token: String
    do {
      token = try bearerToken()
    } catch {
      throw AppStoreAPIError(code: .credentials, message: "cannot sign the API token", cause: error)
    }
    var url = config.baseURL + path
    if !query.isEmpty {
      url += "?" + query.map { "\($0.0)=\(escaped($0.1))" }.joined(separator: "&")
    }
    var request = HTTPClientRequest(url: url)
    request.method = .GET
    request.headers.add(name: "Authorization", value: "Bearer \(token)")
    request.headers.add(name: "Accept", value: "application/json")
    let exchange = HTTPExchange(httpClient: httpClient, timeout: config.timeout)
    let (status, headers, body) = try await exchange.send(request, endpoint: path)
    if (200..<300).contains(status) {
      do {
        return try JSONDecoder().decode(Body.self, from: body)
      } catch {
        throw AppStoreAPIError(
          code: .invalidResponse, message: "undecodable \(Body.self)", httpStatus: status, cause: error)
      }
    }
    let apiError = try? JSONDecoder().decode(AppStoreServerAPI.ErrorBody.self, from: body)
    let retryAfter = headers.first(name: "Retry-After").flatMap(RetryAfter.milliseconds)
    let code: AppStoreAPIError.Code =
      switch status {
      case 401: .unauthorized
      case 404: .notFound
      case 429: .rateLimited
      case 500...599: .serverError
      default: .badRequest
      }
    logger.debug(
      "App Store API refused",
      metadata: [
        "http.status": "\(status)", "apple.error_code": "\(apiError?.errorCode ?? 0)",
        "apple.endpoint": "\(path.split(separator: "/").prefix(3).joined(separator: "/"))",
      ])
    throw AppStoreAPIError(
      code: code, message: apiError?.errorMessage ?? "HTTP \(status)", httpStatus: status,
      apiErrorCode: apiError?.errorCode,
      retryAfterMs: retryAfter)
  }

  private func escaped(_ component: String) -> String {
    component.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
      ?? component
  }
}

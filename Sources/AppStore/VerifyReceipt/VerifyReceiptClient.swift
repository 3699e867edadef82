import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import TollgateCore

/// Apple's legacy `verifyReceipt` endpoint, routed the way Apple documents: production first; a
/// 21007 answer ("this receipt is from the test environment") is sent again to sandbox, and a 21008
/// from sandbox ("this receipt is from production") again to production.
public struct VerifyReceiptClient: Sendable {
  public struct Config: Sendable {
    public static let productionURL = "https://buy.itunes.apple.com/verifyReceipt"
    public static let sandboxURL = "https://sandbox.itunes.apple.com/verifyReceipt"

    public var productionURL: String
    public var sandboxURL: String
    /// The app's shared secret (needed for auto-renewable subscriptions). Never logged.
    public var sharedSecret: String?
    public var excludeOldTransactions: Bool
    public var timeout: Duration

    public init(
      productionURL: String = Config.productionURL, sandboxURL: String = Config.sandboxURL, sharedSecret: String?,
      excludeOldTransactions: Bool = false, timeout: Duration = .seconds(15)
    ) {
      self.productionURL = productionURL
      self.sandboxURL = sandboxURL
      self.sharedSecret = sharedSecret
      self.excludeOldTransactions = excludeOldTransactions
      self.timeout = timeout
    }
  }

  /// Which endpoint gave the final answer.
  public enum Endpoint: String, Sendable, Hashable {
    case production
    case sandbox
  }

  /// The final answer: Apple's `status` and the whole JSON body, for the receipt decoder.
  public struct Outcome: Sendable {
    public var endpoint: Endpoint
    public var status: Int
    public var body: Data
  }

  public let config: Config
  private let httpClient: HTTPClient
  private let logger: Logger

  public init(config: Config, httpClient: HTTPClient, logger: Logger) {
    self.config = config
    self.httpClient = httpClient
    self.logger = logger
  }

  /// Verifies a base64 app receipt. Starts at production unless `startAt` says otherwise.
  public func verify(receiptData: String, startAt first: Endpoint = .production) async throws(AppStoreAPIError)
    -> Outcome
  {
    let outcome = try await post(receiptData, to: first)
    switch (first, outcome.status) {
    case (.production, 21007):
      logger.debug("sandbox receipt sent to production; retrying at sandbox")
      return try await post(receiptData, to: .sandbox)
    case (.sandbox, 21008):
      logger.debug("production receipt sent to sandbox; retrying at production")
      return try await post(receiptData, to: .production)
    default:
      return outcome
    }
  }

  private func post(_ receiptData: String, to endpoint: Endpoint) async throws(AppStoreAPIError) -> Outcome {
    var fields: [String: Any] = [
      "receipt-data": receiptData, "exclude-old-transactions": config.excludeOldTransactions,
    ]
    if let secret = config.sharedSecret { fields["password"] = secret }
    let json: Data
    do {
      json = try JSONSerialization.data(withJSONObject: fields)
    } catch {
      throw AppStoreAPIError(code: .badRequest, message: "cannot encode the verifyReceipt request", cause: error)
    }
    var request = HTTPClientRequest(url: endpoint == .production ? config.productionURL : config.sandboxURL)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.body = .bytes(ByteBuffer(bytes: json))
    let (status, headers, body) = try await HTTPExchange(httpClient: httpClient, timeout: config.timeout)
      .send(request, endpoint: "verifyReceipt (\(endpoint.rawValue))")
    guard (200..<300).contains(status) else {
      throw AppStoreAPIError(
        code: status == 429 ? .rateLimited : (500...599).contains(status) ? .serverError : .badRequest,
        message: "verifyReceipt answered HTTP \(status)", httpStatus: status,
        retryAfterMs: headers.first(name: "Retry-After").flatMap(RetryAfter.milliseconds))
    }
    struct StatusOnly: Decodable { var status: Int }
    guard let parsed = try? JSONDecoder().decode(StatusOnly.self, from: body) else {
      throw AppStoreAPIError(
        code: .invalidResponse, message: "verifyReceipt answered without a status", httpStatus: status)
    }
    return Outcome(endpoint: endpoint, status: parsed.status, body: body)
  }
}

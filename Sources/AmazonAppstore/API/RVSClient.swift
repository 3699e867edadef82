import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import TollgateCore

/// The Receipt Verification Service over AsyncHTTPClient: `verifyReceiptId` on the production
/// endpoint or the RVS cloud sandbox. Every failure is an `RVSError`.
///
/// The shared secret is a path segment of the request, so the request URL is a secret: it never
/// goes into a log, an error or a metric; logs show the path with the secret replaced.
public struct RVSClient: Sendable {
  public let config: RVSConfig
  private let httpClient: HTTPClient
  private let logger: Logger
  static let maximumBodyBytes = 1 << 20

  public init(config: RVSConfig, httpClient: HTTPClient, logger: Logger) {
    self.config = config
    self.httpClient = httpClient
    self.logger = logger
  }

  /// `GET {base}/version/1.0/verifyReceiptId/developer/{sharedSecret}/user/{userId}/receiptId/{receiptId}`:
  /// the receipt's JSON body as Amazon sent it (decode it with `RVSReceipt`).
  ///
  /// - Parameter sandbox: ask the RVS cloud sandbox instead of production.
  public func verifyReceiptId(sharedSecret: String, userId: String, receiptId: String, sandbox: Bool)
    async throws(RVSError) -> Data
  {
    let base = config.baseURL(sandbox: sandbox)
    let path = Self.path(sharedSecret: sharedSecret, userId: userId, receiptId: receiptId)
    var request = HTTPClientRequest(url: base + path)
    request.method = .GET
    request.headers.add(name: "Accept", value: "application/json")
    let status: Int
    let retryAfter: String?
    let body: Data
    do {
      let response = try await httpClient.execute(request, timeout: .nanoseconds(config.timeout.nanoseconds))
      let collected = try await response.body.collect(upTo: Self.maximumBodyBytes)
      (status, retryAfter, body) = (
        Int(response.status.code), response.headers.first(name: "Retry-After"), Data(collected.readableBytesView)
      )
    } catch {
      let cause = Redacted(error, secret: sharedSecret)
      logger.debug("no answer from RVS", metadata: ["amazon.rvs.sandbox": "\(sandbox)", "error": "\(cause)"])
      throw RVSError(
        code: .transport, message: "no answer from the Receipt Verification Service\(sandbox ? " sandbox" : "")",
        cause: cause)
    }
    if status == 200 {
      guard (try? JSONSerialization.jsonObject(with: body)) is [String: Any] else {
        throw RVSError(
          code: .invalidResponse, message: "RVS answered 200 with a body that is not a JSON object",
          httpStatus: status)
      }
      return body
    }
    let code = Self.classify(status)
    let amazonMessage = (try? JSONDecoder().decode(RVSErrorBody.self, from: body))?.message
    logger.debug(
      "RVS refused",
      metadata: [
        "http.status": "\(status)", "amazon.rvs.error": "\(code)", "amazon.rvs.sandbox": "\(sandbox)",
        "amazon.rvs.path": "\(Self.redactedPath(userId: userId, receiptId: receiptId))",
      ])
    var message = Self.meaning(code, status: status)
    if let amazonMessage, !amazonMessage.isEmpty {
      message += "; Amazon said: \(Self.redact(amazonMessage, secret: sharedSecret))"
    }
    throw RVSError(
      code: code, message: message, httpStatus: status,
      retryAfterMs: retryAfter.flatMap(RetryAfter.milliseconds))
  }

  // MARK: Requests

  static func path(sharedSecret: String, userId: String, receiptId: String) -> String {
    "/version/1.0/verifyReceiptId/developer/\(segment(sharedSecret))/user/\(segment(userId))"
      + "/receiptId/\(segment(receiptId))"
  }

  /// The request path as logs may show it: the secret replaced by `<redacted>`, the receipt id
  /// shortened to its first 12 characters.
  static func redactedPath(userId: String, receiptId: String) -> String {
    "/version/1.0/verifyReceiptId/developer/<redacted>/user/\(segment(userId))/receiptId/"
      + segment(receiptId.count > 12 ? "\(receiptId.prefix(12))…" : receiptId)
  }

  /// `value` as one path segment: everything but RFC 3986's unreserved characters escaped.
  static func segment(_ value: String) -> String {
    value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
  }

  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

  /// The error code of a non-200 status, as Amazon documents RVS's statuses.
  static func classify(_ status: Int) -> RVSError.Code {
    switch status {
    case 400: .invalidReceipt
    case 410: .receiptNoLongerValid
    case 429: .throttled
    case 496: .invalidSharedSecret
    case 497: .invalidUserId
    case 500...599: .serverError
    default: .unexpectedStatus
    }
  }

  private static func meaning(_ code: RVSError.Code, status: Int) -> String {
    switch code {
    case .invalidReceipt: "invalid receipt id"
    case .receiptNoLongerValid: "the receipt is no longer valid"
    case .throttled: "too many requests"
    case .invalidSharedSecret: "the shared secret is invalid"
    case .invalidUserId: "the user id does not own this receipt"
    case .serverError: "RVS server error"
    default: "unexpected HTTP status \(status)"
    }
  }

  /// `text` with any spelling of `secret` (plain or percent-encoded) replaced.
  static func redact(_ text: String, secret: String) -> String {
    guard !secret.isEmpty else { return text }
    return text.replacingOccurrences(of: secret, with: "<redacted>")
      .replacingOccurrences(of: segment(secret), with: "<redacted>")
  }
}

/// `{"message": "..."}`, the body RVS sends with an error status.
private struct RVSErrorBody: Decodable {
  var message: String?
}

/// A transport error whose description cannot show the shared secret, should the HTTP client
/// ever put the URL into it.
struct Redacted: Error, CustomStringConvertible {
  let description: String

  init(_ error: any Error, secret: String) {
    description = RVSClient.redact(String(describing: error), secret: secret)
  }
}

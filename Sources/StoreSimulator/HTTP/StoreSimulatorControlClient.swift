import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Talks to a running simulator's control API (`/sim/…`): what `tollgate storesim advance`
/// and the scenario subcommands use. Answers are returned as the JSON text the simulator sent.
public struct StoreSimulatorControlClient: Sendable {
  public struct Answer: Sendable {
    public var status: Int
    public var body: String
    public var isSuccess: Bool { (200..<300).contains(status) }
  }

  public let baseURL: String
  private let httpClient: HTTPClient

  /// - Parameter baseURL: `http://HOST:PORT` of the simulator.
  public init(baseURL: String, httpClient: HTTPClient) {
    self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    self.httpClient = httpClient
  }

  /// Sends `method path` with an optional JSON body.
  public func send(_ method: String, _ path: String, json: [String: any Sendable]? = nil) async throws -> Answer {
    var request = HTTPClientRequest(url: baseURL + path)
    request.method = HTTPMethod(rawValue: method)
    if let json {
      request.headers.add(name: "Content-Type", value: "application/json")
      request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])))
    }
    let response = try await httpClient.execute(request, timeout: .seconds(120))
    let body = try await response.body.collect(upTo: 16 << 20)
    return Answer(status: Int(response.status.code), body: String(buffer: body))
  }

  /// `POST /sim/clock/advance {"by": duration}`.
  public func advance(by duration: String) async throws -> Answer {
    try await send("POST", "/sim/clock/advance", json: ["by": duration])
  }

  /// `GET /sim/clock`.
  public func clock() async throws -> Answer { try await send("GET", "/sim/clock") }

  /// `POST /sim/google/purchases`: a Google Play purchase; the answer is a `GooglePurchaseResult`.
  public func googlePurchase(_ purchase: GooglePurchaseRequest) async throws -> Answer {
    let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(purchase))
    return try await send("POST", "/sim/google/purchases", json: object as? [String: any Sendable] ?? [:])
  }

  /// `POST /sim/google/purchases/{token}/{action}` (`cancel`, `pause` with `["duration": "30d"]`, …;
  /// docs/storesim.md); the answer is the token's `GooglePurchaseSnapshot`.
  public func google(_ action: String, purchaseToken: String, json: [String: any Sendable] = [:]) async throws
    -> Answer
  {
    try await send("POST", "/sim/google/purchases/\(purchaseToken)/\(action)", json: json)
  }

  /// `POST /sim/amazon/purchases`: an Amazon Appstore purchase; the answer is an `AmazonPurchaseResult`.
  public func amazonPurchase(_ purchase: AmazonPurchaseRequest) async throws -> Answer {
    let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(purchase))
    return try await send("POST", "/sim/amazon/purchases", json: object as? [String: any Sendable] ?? [:])
  }

  /// `POST /sim/amazon/receipts/{receiptId}/{action}` (`cancel`, `refund`, `auto-renew` with
  /// `["enabled": false]`, `fail-renewals`, `recover-payment`, `change-tier` with
  /// `["sku": …, "immediate": true]`; docs/storesim.md), the receipt id percent-encoded; the
  /// answer is an `AmazonReceiptSnapshot`.
  public func amazon(_ action: String, receiptId: String, json: [String: any Sendable] = [:]) async throws -> Answer {
    try await send("POST", "/sim/amazon/receipts/\(Self.pathSegment(receiptId))/\(action)", json: json)
  }

  /// `GET /sim/amazon/receipts/{receiptId}`.
  public func amazonReceipt(_ receiptId: String) async throws -> Answer {
    try await send("GET", "/sim/amazon/receipts/\(Self.pathSegment(receiptId))")
  }

  /// `POST /sim/amazon/notification-url {"url"}`: a new SNS subscription for the app's RTN.
  public func amazonSetNotificationURL(_ url: String?, appPackageName: String? = nil) async throws -> Answer {
    var json: [String: any Sendable] = [:]
    if let url { json["url"] = url }
    if let appPackageName { json["appPackageName"] = appPackageName }
    return try await send("POST", "/sim/amazon/notification-url", json: json)
  }

  /// `text` percent-encoded for one path segment (unreserved characters only stay).
  static func pathSegment(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }
}

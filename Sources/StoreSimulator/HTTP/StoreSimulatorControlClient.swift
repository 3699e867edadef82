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
}

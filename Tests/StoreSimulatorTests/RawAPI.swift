import AppStore
import AsyncHTTPClient
import Foundation
import NIOCore
import StoreSimulator

/// One App Store Server API answer as it came over the wire.
struct RawAnswer {
  var status: Int
  var contentType: String?
  var body: [UInt8]
  var text: String { String(decoding: body, as: UTF8.self) }
  var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
}

extension Harness {
  /// The real API client with its own deadline (a stall is seen at the client's deadline).
  func client(timeout: Duration) -> AppStoreServerAPIClient {
    let token = self.token
    return AppStoreServerAPIClient(
      config: AppStoreServerAPIConfig(baseURL: sim.baseURL + "/sandbox", timeout: timeout), httpClient: .shared,
      bearerToken: { try token.token() }, logger: Self.logger)
  }

  /// `GET /sandbox{path}` with a valid token, the answer's bytes as they came.
  func get(_ path: String, timeout: Duration = .seconds(5)) async throws -> RawAnswer {
    var request = HTTPClientRequest(url: sim.baseURL + "/sandbox" + path)
    request.headers.add(name: "Authorization", value: "Bearer \(try token.token())")
    let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(timeout.inNanoseconds))
    let body = try await response.body.collect(upTo: 1 << 20)
    return RawAnswer(
      status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"),
      body: Array(body.readableBytesView))
  }

  /// The API error a call threw, or `nil` when it returned.
  func apiError<T>(_ call: () async throws(AppStoreAPIError) -> T) async -> AppStoreAPIError? {
    do {
      _ = try await call()
      return nil
    } catch {
      return error
    }
  }
}

extension Duration {
  var inNanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TollgateCore

/// One HTTP request with a deadline and a bounded body, every failure as an `AppStoreAPIError`.
struct HTTPExchange {
  let httpClient: HTTPClient
  let timeout: Duration
  static let maximumBodyBytes = 8 << 20

  func send(_ request: HTTPClientRequest, endpoint: String) async throws(AppStoreAPIError)
    -> (status: Int, headers: HTTPHeaders, body: Data)
  {
    do {
      let response = try await httpClient.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
      let body = try await response.body.collect(upTo: Self.maximumBodyBytes)
      return (Int(response.status.code), response.headers, Data(body.readableBytesView))
    } catch {
      throw AppStoreAPIError(code: .transport, message: "no answer from \(endpoint)", cause: error)
    }
  }
}

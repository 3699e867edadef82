import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// JSON answers, and the one mapping from `StoreSimulatorError` to an HTTP status.
enum HTTPAnswer {
  static func json<Body: Encodable>(_ body: Body, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:])
    -> Response
  {
    StoreAnswer.json(body, status: status, headers: headers).response
  }

  /// An App Store Server API error body: `{"errorCode": …, "errorMessage": …}`.
  static func appleError(_ status: Int, _ code: Int, _ message: String, headers: HTTPFields = [:]) -> Response {
    StoreAnswer.appleError(status, code, message, headers: headers).response
  }

  /// A control API error: `{"error": "<code>", "message": …}`.
  static func error(_ error: StoreSimulatorError) -> Response {
    struct Body: Encodable {
      var error: String
      var message: String
    }
    let status: HTTPResponse.Status =
      switch error.code {
      case .notFound: .notFound
      case .conflict: .conflict
      case .invalidRequest: .badRequest
      default: .internalServerError
      }
    return json(Body(error: error.code.description, message: error.message), status: status)
  }

  static func retryAfter(_ seconds: Int?) -> HTTPFields {
    guard let seconds, let name = HTTPField.Name("Retry-After") else { return [:] }
    return [name: String(seconds)]
  }

  /// The request body as `T`; an empty body decodes as `{}`.
  static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws(StoreSimulatorError) -> T {
    var request = request
    let buffer: ByteBuffer
    do {
      buffer = try await request.collectBody(upTo: 1 << 20)
    } catch {
      throw StoreSimulatorError(code: .invalidRequest, message: "cannot read the request body", cause: error)
    }
    let data = buffer.readableBytes == 0 ? Data("{}".utf8) : Data(buffer.readableBytesView)
    do {
      return try JSONDecoder().decode(T.self, from: data)
    } catch {
      throw StoreSimulatorError(code: .invalidRequest, message: "invalid JSON body: \(error)", cause: error)
    }
  }
}

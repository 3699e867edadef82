import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A store's answer before it goes on the wire: status, headers and the exact body bytes, so
/// that a fault can cut, corrupt or replay it.
struct StoreAnswer: Sendable {
  var status: HTTPResponse.Status
  var headers: HTTPFields
  var body: [UInt8]

  init(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], body: [UInt8]) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// `body` as JSON, keys sorted, slashes unescaped.
  static func json<Body: Encodable>(_ body: Body, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:])
    -> StoreAnswer
  {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
    var fields = headers
    fields[.contentType] = "application/json"
    return StoreAnswer(status: status, headers: fields, body: Array(data))
  }

  /// An App Store Server API error body: `{"errorCode": …, "errorMessage": …}`.
  static func appleError(_ status: Int, _ code: Int, _ message: String, headers: HTTPFields = [:]) -> StoreAnswer {
    struct Body: Encodable {
      var errorCode: Int
      var errorMessage: String
    }
    return json(Body(errorCode: code, errorMessage: message), status: .init(code: status), headers: headers)
  }

  var response: Response {
    Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
  }
}

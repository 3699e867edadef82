import Foundation
import Hummingbird
import NIOCore

/// The JSON bodies of the admin listeners' probes and health (`/health`, `/readyz`, `/livez`),
/// serve's and the worker's: one encoding (keys sorted, so the same state reads the same every
/// time) and one response shape.
public enum ProbeJSON {
  /// `object` as JSON text; `{}` if it holds something JSON cannot say (it never does here:
  /// strings, numbers, booleans, arrays and dictionaries of them).
  public static func text(_ object: [String: Any]) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }

  /// A response with `body` as its JSON.
  public static func response(_ body: String, status: HTTPResponse.Status) -> Response {
    Response(
      status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
  }

  /// A response with `object` as its JSON.
  public static func response(_ object: [String: Any], status: HTTPResponse.Status) -> Response {
    response(text(object), status: status)
  }
}

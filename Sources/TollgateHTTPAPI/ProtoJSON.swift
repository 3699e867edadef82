import Foundation
import Hummingbird
import NIOCore
import SwiftProtobuf

/// The door's JSON: the proto3 JSON mapping of the same messages the other doors carry, through
/// SwiftProtobuf (lowerCamelCase names, enum values by name, int64 and uint64 as strings, fields
/// at their default left out). One schema serves all three doors.
enum ProtoJSON {
  static let contentType = "application/json"

  /// `message` as the answer's body.
  static func response(
    _ message: some SwiftProtobuf.Message, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
  )
    -> Response
  {
    var headers = headers
    headers[.contentType] = contentType
    let bytes: [UInt8]
    do {
      bytes = try message.jsonUTF8Bytes()
    } catch {
      // Only a message holding an unencodable value (none of ours): a bug.
      return ProblemDocument.internalError.response
    }
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
  }

  /// Decodes the request's body as `M`: refused 415 unless it is `application/json`, 413 past
  /// `limit` bytes (at once when its Content-Length says so), 400 naming the field when it does not
  /// decode (an unknown field included: a misspelt one is never silently dropped).
  static func decode<M: SwiftProtobuf.Message>(_: M.Type, from request: Request, limit: Int)
    async throws(ProblemDocument)
    -> M
  {
    let contentType = request.headers[.contentType]
    guard let contentType, isJSON(contentType) else { throw ProblemDocument.unsupportedMediaType(contentType) }
    if let declared = request.headers[.contentLength], let length = Int(declared), length > limit {
      throw ProblemDocument.tooLarge(limit: limit)
    }
    var request = request
    let body: ByteBuffer
    do {
      body = try await request.collectBody(upTo: limit)
    } catch is NIOTooManyBytesError {
      throw ProblemDocument.tooLarge(limit: limit)
    } catch {
      throw ProblemDocument.invalidBody("the body could not be read")
    }
    return try decode(M.self, bytes: Array(body.readableBytesView))
  }

  static let decodingOptions: JSONDecodingOptions = {
    var options = JSONDecodingOptions()
    options.messageDepthLimit = 8
    options.ignoreUnknownFields = false
    return options
  }()

  /// `bytes` as `M`; a failure names the field to blame.
  static func decode<M: SwiftProtobuf.Message>(_: M.Type, bytes: [UInt8]) throws(ProblemDocument) -> M {
    do {
      return try M(jsonUTF8Bytes: bytes, options: decodingOptions)
    } catch JSONDecodingError.unknownField(let name) {
      throw ProblemDocument.invalidBody("unknown field \(ProblemDocument.quoted(name, limit: 64))")
    } catch {
      throw ProblemDocument.invalidBody(blame(M.self, bytes: bytes, error: error))
    }
  }

  /// Which top-level field makes `bytes` fail to decode as `M`: each one is decoded alone, and the
  /// first that fails is named with what SwiftProtobuf said of it.
  static func blame<M: SwiftProtobuf.Message>(_: M.Type, bytes: [UInt8], error: any Error) -> String {
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
      return "the body is not a JSON object (\(reason(error)))"
    }
    for key in object.keys.sorted() {
      guard let value = object[key],
        let alone = try? JSONSerialization.data(withJSONObject: [key: value], options: [.fragmentsAllowed])
      else { continue }
      do {
        _ = try M(jsonUTF8Bytes: alone, options: decodingOptions)
      } catch {
        return "field \(ProblemDocument.quoted(key, limit: 64)) does not decode (\(reason(error)))"
      }
    }
    return "the body does not decode (\(reason(error)))"
  }

  private static func reason(_ error: any Error) -> String {
    guard let error = error as? JSONDecodingError else { return "not valid JSON" }
    switch error {
    case .malformedNumber, .numberRange, .leadingZero: return "not a valid number"
    case .malformedBool: return "not a boolean"
    case .malformedString, .invalidUTF8: return "not a valid string"
    case .unrecognizedEnumValue: return "not a known enum value"
    case .messageDepthLimit: return "nested too deeply"
    case .truncated, .trailingGarbage: return "not valid JSON"
    case .schemaMismatch: return "the wrong type"
    case .illegalNull: return "null is not allowed here"
    default: return "not valid here"
    }
  }

  /// `application/json`, with parameters (`; charset=utf-8`) or not, in any case.
  static func isJSON(_ contentType: String) -> Bool {
    let media = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    return media.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
  }
}

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TollgateCore

/// One exchange with the OAuth 2.0 token endpoint: the JWT-bearer grant (RFC 7523) posted
/// form-encoded, its answer decoded and its errors classified.
struct TokenEndpoint: Sendable {
  /// A granted access token.
  struct Grant: Sendable {
    var accessToken: String
    var expiresInSeconds: Int64
    var tokenType: String
  }

  static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

  let url: String
  let httpClient: HTTPClient
  let timeout: Duration

  private struct Success: Decodable {
    var access_token: String
    var expires_in: Int64
    var token_type: String
  }

  private struct Failure: Decodable {
    var error: String?
    var error_description: String?
  }

  func exchange(assertion: String) async throws(GoogleAuthError) -> Grant {
    var request = HTTPClientRequest(url: url)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
    request.headers.add(name: "Accept", value: "application/json")
    let form = "grant_type=\(Self.formEncode(Self.grantType))&assertion=\(Self.formEncode(assertion))"
    request.body = .bytes(ByteBuffer(string: form))
    let status: Int
    let body: Data
    do {
      let response = try await httpClient.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
      status = Int(response.status.code)
      body = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
    } catch {
      throw GoogleAuthError(code: .unavailable, message: "no answer from the token endpoint \(url)", cause: error)
    }
    guard status == 200 else { throw Self.classify(status: status, body: body) }
    guard let success = try? JSONDecoder().decode(Success.self, from: body), !success.access_token.isEmpty,
      success.expires_in > 0
    else {
      throw GoogleAuthError(
        code: .malformedResponse, message: "the token endpoint's answer has no access_token and expires_in",
        httpStatus: status)
    }
    return Grant(accessToken: success.access_token, expiresInSeconds: success.expires_in, tokenType: success.token_type)
  }

  /// The error of a non-200 answer: Google's `error` for 4xx, transient for 429 and 5xx.
  static func classify(status: Int, body: Data) -> GoogleAuthError {
    let failure = try? JSONDecoder().decode(Failure.self, from: body)
    let detail = [failure?.error, failure?.error_description].compactMap { $0 }.joined(separator: ": ")
    if status == 429 || status >= 500 {
      return GoogleAuthError(
        code: .unavailable, message: "the token endpoint is unavailable" + (detail.isEmpty ? "" : " (\(detail))"),
        httpStatus: status)
    }
    switch failure?.error {
    case "invalid_grant":
      return GoogleAuthError(
        code: .invalidGrant,
        message: "the service-account key was refused (\(detail)): create a new key, or check this machine's clock",
        httpStatus: status)
    case "unauthorized_client":
      return GoogleAuthError(
        code: .unauthorizedClient,
        message: "the service account may not use this grant or scope (\(detail))", httpStatus: status)
    default:
      return GoogleAuthError(
        code: .rejected,
        message: "the token endpoint refused the assertion" + (detail.isEmpty ? "" : " (\(detail))"),
        httpStatus: status)
    }
  }

  /// `application/x-www-form-urlencoded`: everything but unreserved characters percent-encoded.
  static func formEncode(_ value: String) -> String {
    var out = ""
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = String(byte, radix: 16, uppercase: true)
        out += "%" + (hex.count == 1 ? "0" + hex : hex)
      }
    }
    return out
  }
}

import Foundation
import TollgateCrypto

/// A compact JWS split into its parts, not yet verified.
public struct JWS: Sendable {
  /// The decoded protected header, as far as Tollgate reads it.
  public struct Header: Sendable, Hashable, Decodable {
    public var alg: String?
    public var kid: String?
    public var typ: String?
    /// Base64 (not base64url) DER certificates: leaf, intermediate, root.
    public var x5c: [String]?
  }

  public var header: Header
  /// The header JSON bytes.
  public var headerJSON: [UInt8]
  /// The payload JSON bytes.
  public var payload: [UInt8]
  /// `BASE64URL(header) "." BASE64URL(payload)`, the signed bytes.
  public var signingInput: [UInt8]
  public var signature: [UInt8]

  /// Splits and decodes `compact`; the error says which part is malformed.
  public static func parse(_ compact: String) -> Result<JWS, VerificationError> {
    let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
      return .failure(VerificationError(code: .invalidJWTFormat, message: "expected 3 segments, got \(parts.count)"))
    }
    guard let headerJSON = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
      let signature = Base64URL.decode(parts[2])
    else {
      return .failure(VerificationError(code: .malformedBase64, message: "a JWS segment is not base64url"))
    }
    guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerJSON)) else {
      return .failure(VerificationError(code: .invalidJWTFormat, message: "the JWS header is not a JSON object"))
    }
    let signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    return .success(
      JWS(header: header, headerJSON: headerJSON, payload: payload, signingInput: signingInput, signature: signature))
  }

  /// Builds and signs a compact ES256 JWS (for the API token and the store simulator).
  public static func signES256(
    header: [String: any Sendable], payloadJSON: [UInt8], key: P256PrivateKey
  ) throws -> String {
    var fields = header
    fields["alg"] = "ES256"
    let headerJSON = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
    let input = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payloadJSON)
    let signature = try ES256.sign(Array(input.utf8), with: key)
    return input + "." + Base64URL.encode(signature)
  }
}

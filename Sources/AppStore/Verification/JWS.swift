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

  /// Splits and decodes `compact`; the error says which part is malformed. Read as UTF-8 bytes:
  /// a compact JWS is ASCII, and its signed bytes are the text before the second `.`.
  public static func parse(_ compact: String) -> Result<JWS, VerificationError> {
    var compact = compact
    return compact.withUTF8 { parse(utf8: $0) }
  }

  private static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Result<JWS, VerificationError> {
    var dots: [Int] = []
    for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") {
      dots.append(offset)
      if dots.count > 2 { break }
    }
    guard dots.count == 2, dots[0] > 0, dots[1] > dots[0] + 1 else {
      let segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).count
      return .failure(VerificationError(code: .invalidJWTFormat, message: "expected 3 segments, got \(segments)"))
    }
    func segment(_ range: Range<Int>) -> [UInt8]? {
      Base64URL.decode(utf8: UnsafeBufferPointer(rebasing: bytes[range]))
    }
    guard let headerJSON = segment(0..<dots[0]), let payload = segment(dots[0] + 1..<dots[1]),
      let signature = segment(dots[1] + 1..<bytes.count)
    else {
      return .failure(VerificationError(code: .malformedBase64, message: "a JWS segment is not base64url"))
    }
    guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerJSON)) else {
      return .failure(VerificationError(code: .invalidJWTFormat, message: "the JWS header is not a JSON object"))
    }
    return .success(
      JWS(
        header: header, headerJSON: headerJSON, payload: payload, signingInput: Array(bytes[0..<dots[1]]),
        signature: signature))
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

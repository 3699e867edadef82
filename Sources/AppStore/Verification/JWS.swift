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

  /// Splits and decodes `compact` (`CompactJWS`); the error says which part is malformed.
  public static func parse(_ compact: String) -> Result<JWS, VerificationError> {
    let parts: CompactJWS
    switch CompactJWS.split(compact) {
    case .success(let split): parts = split
    case .failure(.segments(let count)):
      return .failure(VerificationError(code: .invalidJWTFormat, message: "expected 3 segments, got \(count)"))
    case .failure(.base64):
      return .failure(VerificationError(code: .malformedBase64, message: "a JWS segment is not base64url"))
    }
    guard let header = try? JSONDecoder().decode(Header.self, from: Data(parts.header)) else {
      return .failure(VerificationError(code: .invalidJWTFormat, message: "the JWS header is not a JSON object"))
    }
    return .success(
      JWS(
        header: header, headerJSON: parts.header, payload: parts.payload, signingInput: parts.signingInput,
        signature: parts.signature))
  }

  /// Builds and signs a compact ES256 JWS (for the API token and the store simulator).
  public static func signES256(
    header: [String: any Sendable], payloadJSON: [UInt8], key: P256PrivateKey
  ) throws -> String {
    try ES256Signer(header: header, key: key).sign(payloadJSON: payloadJSON)
  }

  /// Signs compact ES256 JWS under one protected header, encoded once: the store simulator signs
  /// every answer under the same `x5c` chain, whose three certificates are most of the header.
  public struct ES256Signer: Sendable {
    /// `BASE64URL(header) "."`.
    private let encodedHeader: String
    private let key: P256PrivateKey

    /// `header` with `alg` ES256 added.
    public init(header: [String: any Sendable], key: P256PrivateKey) throws {
      var fields = header
      fields["alg"] = "ES256"
      let headerJSON = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
      encodedHeader = Base64URL.encode(headerJSON) + "."
      self.key = key
    }

    public func sign(payloadJSON: [UInt8]) throws -> String {
      let input = encodedHeader + Base64URL.encode(payloadJSON)
      let signature = try ES256.sign(Array(input.utf8), with: key)
      return input + "." + Base64URL.encode(signature)
    }
  }
}

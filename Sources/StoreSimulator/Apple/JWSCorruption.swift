import Foundation
import TollgateCrypto

/// The `badSignature` fault's work: every compact JWS in an answer keeps its header and payload
/// but gets a signature that does not match them, so that a verifier refuses it while everything
/// else about the answer (its JSON, its chain of certificates) stays as the store sent it.
enum JWSCorruption {
  /// `body` with the signature of every JWS string in its JSON corrupted; a body that is not a
  /// JSON object or array comes back unchanged.
  static func corruptingSignatures(in body: [UInt8]) -> [UInt8] {
    guard let object = try? JSONSerialization.jsonObject(with: Data(body)),
      let data = try? JSONSerialization.data(
        withJSONObject: corrupting(object), options: [.sortedKeys, .withoutEscapingSlashes])
    else { return body }
    return Array(data)
  }

  private static func corrupting(_ value: Any) -> Any {
    switch value {
    case let string as String: return corrupted(string) ?? string
    case let array as [Any]: return array.map(corrupting)
    case let object as [String: Any]: return object.mapValues(corrupting)
    default: return value
    }
  }

  /// `jws` with one bit of each half of its signature flipped, or `nil` if it is not a JWS.
  static func corrupted(_ jws: String) -> String? {
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].hasPrefix("eyJ"), var signature = Base64URL.decode(parts[2]),
      !signature.isEmpty
    else { return nil }
    signature[0] ^= 0x01
    signature[signature.count - 1] ^= 0x01
    return "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
  }
}

/// A compact JWS or JWT, `BASE64URL(header) "." BASE64URL(payload) "." BASE64URL(signature)`,
/// split by its bytes and its segments decoded, not yet verified: the one reader of Apple's
/// signed data, Google's ID tokens and the looks at a notification before it is verified.
public struct CompactJWS: Sendable {
  /// The header's JSON bytes.
  public var header: [UInt8]
  /// The payload's JSON bytes.
  public var payload: [UInt8]
  public var signature: [UInt8]
  /// The signed bytes: the text before the second `.`.
  public var signingInput: [UInt8]

  /// Why a text is not a compact JWS.
  public enum Failure: Error, Sendable, Hashable {
    /// Not three segments, or an empty header or payload; how many segments there were.
    case segments(Int)
    /// A segment is not base64url.
    case base64
  }

  /// Splits `compact` and decodes its three segments.
  public static func split(_ compact: some StringProtocol) -> Result<CompactJWS, Failure> {
    if let split = compact.utf8.withContiguousStorageIfAvailable({ split(utf8: $0) }) { return split }
    return Array(compact.utf8).withUnsafeBufferPointer { split(utf8: $0) }
  }

  /// How many `.`-separated segments `text` has (a compact JWS has 3), counted in its bytes.
  public static func segmentCount(_ text: some StringProtocol) -> Int {
    text.utf8.reduce(1) { $1 == UInt8(ascii: ".") ? $0 + 1 : $0 }
  }

  private static func split(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Result<CompactJWS, Failure> {
    var dots = (first: -1, second: -1)
    for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") {
      if dots.first < 0 {
        dots.first = offset
      } else if dots.second < 0 {
        dots.second = offset
      } else {
        return .failure(.segments(1 + bytes.count { $0 == UInt8(ascii: ".") }))
      }
    }
    guard dots.second > dots.first + 1, dots.first > 0 else {
      return .failure(.segments(dots.first < 0 ? 1 : dots.second < 0 ? 2 : 3))
    }
    func segment(_ range: Range<Int>) -> [UInt8]? {
      Base64URL.decode(utf8: UnsafeBufferPointer(rebasing: bytes[range]))
    }
    guard let header = segment(0..<dots.first), let payload = segment(dots.first + 1..<dots.second),
      let signature = segment(dots.second + 1..<bytes.count)
    else { return .failure(.base64) }
    return .success(
      CompactJWS(header: header, payload: payload, signature: signature, signingInput: Array(bytes[0..<dots.second])))
  }
}

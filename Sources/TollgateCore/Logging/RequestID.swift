/// The id of one request as it travels: taken from the caller's `x-request-id` (an HTTP header,
/// gRPC metadata, a store's notification request) when it is sane, else made up here; stored with
/// the inbox item the request made, logged by the worker as `request_id` for that item, and sent
/// with the webhooks it causes (`Tollgate-Request-Id`).
///
/// Sane means 1 to 64 characters of `A-Z a-z 0-9 . _ -`: safe in a log line, a header and a
/// database column as it is, so it needs no escaping anywhere. Anything else a caller sends is
/// not used (nor logged): a new id is made for the request instead.
public struct RequestID: Sendable, Hashable, CustomStringConvertible {
  public let value: String

  /// The caller's id when it is sane, else nil.
  public init?(_ text: some StringProtocol) {
    guard Self.isSane(text) else { return nil }
    value = String(text)
  }

  private init(unchecked value: String) { self.value = value }

  public var description: String { value }

  /// The header and metadata key the id comes in and is echoed under.
  public static let header = "x-request-id"

  /// The longest id taken from a caller.
  public static let maximumLength = 64

  /// 1 to 64 characters of `A-Z a-z 0-9 . _ -`.
  public static func isSane(_ text: some StringProtocol) -> Bool {
    let utf8 = text.utf8
    guard !utf8.isEmpty, utf8.count <= maximumLength else { return false }
    return utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
        true
      default: false
      }
    }
  }

  /// A new id: 16 random hex digits.
  public static func generated() -> RequestID {
    var generator = SystemRandomNumberGenerator()
    return generated(using: &generator)
  }

  static func generated(using generator: inout some RandomNumberGenerator) -> RequestID {
    let hex = String(generator.next() as UInt64, radix: 16)
    return RequestID(unchecked: String(repeating: "0", count: 16 - hex.count) + hex)
  }

  /// The caller's id when it is sane (`header`: the first value of its `x-request-id`), else a new one.
  public static func taken(from header: (some StringProtocol)?) -> RequestID {
    header.flatMap { RequestID($0) } ?? generated()
  }
}

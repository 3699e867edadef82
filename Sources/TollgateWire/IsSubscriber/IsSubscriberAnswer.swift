import NIOCore
import TollgateContract

/// Everything a successful `IsSubscriberResponse` carries, without building the protobuf message:
/// the hot path writes it straight into the connection's output buffer. `ByteBuffer
/// .writeIsSubscriberResponse` produces exactly the bytes swift-protobuf would for the same
/// message (the codec tests compare them field by field).
public struct IsSubscriberAnswer: Sendable, Hashable {
  public var active = false
  public var expiresAtMs: Int64 = 0
  public var state = Tollgate_V1_SubscriptionState.unspecified
  public var willRenew = false
  public var store = Tollgate_V1_Store.unspecified
  public var productId = ""
  public var environment = Tollgate_V1_Environment.unspecified
  public var verifiedAtMs: Int64 = 0
  public var evaluatedAtMs: Int64 = 0
  public var storeSubscriptionId = ""
  /// When set, the store subscription id is this number in decimal (and `storeSubscriptionId` is
  /// ignored): the hot path writes the digits without building a String.
  public var numericStoreSubscriptionId: UInt64?
  /// How much of the app the state gives ("full", "none", an operator's level); "" for no record.
  public var accessLevel = ""

  public init() {}

  /// Every field at once (the hot path builds its answer in one step; inlinable, so that it is
  /// built in place in the caller's module instead of built here and copied out).
  @inlinable
  public init(
    active: Bool, expiresAtMs: Int64, state: Tollgate_V1_SubscriptionState, willRenew: Bool, store: Tollgate_V1_Store,
    productId: String, environment: Tollgate_V1_Environment, verifiedAtMs: Int64, evaluatedAtMs: Int64,
    storeSubscriptionId: String, numericStoreSubscriptionId: UInt64?, accessLevel: String = ""
  ) {
    self.active = active
    self.expiresAtMs = expiresAtMs
    self.state = state
    self.willRenew = willRenew
    self.store = store
    self.productId = productId
    self.environment = environment
    self.verifiedAtMs = verifiedAtMs
    self.evaluatedAtMs = evaluatedAtMs
    self.storeSubscriptionId = storeSubscriptionId
    self.numericStoreSubscriptionId = numericStoreSubscriptionId
    self.accessLevel = accessLevel
  }

  /// The same answer as a protobuf message.
  public var message: Tollgate_V1_IsSubscriberResponse {
    var response = Tollgate_V1_IsSubscriberResponse()
    response.active = active
    response.expiresAtMs = expiresAtMs
    response.state = state
    response.willRenew = willRenew
    response.store = store
    response.productID = productId
    response.environment = environment
    response.verifiedAtMs = verifiedAtMs
    response.evaluatedAtMs = evaluatedAtMs
    response.storeSubscriptionID = numericStoreSubscriptionId.map { String($0) } ?? storeSubscriptionId
    response.accessLevel = accessLevel
    return response
  }
}

extension ByteBuffer {
  /// Appends `answer` as a serialized `IsSubscriberResponse` (proto3: fields in number order,
  /// defaults omitted); returns the number of bytes written. Written as its view is.
  @discardableResult
  public mutating func writeIsSubscriberResponse(_ answer: IsSubscriberAnswer) -> Int {
    answer.withView { writeIsSubscriberResponse($0) }
  }

  /// Appends a whole success frame (header and payload) for `answer`, in one write.
  public mutating func writeIsSubscriberResponseFrame(
    methodIndex: UInt32, requestId: UInt32, answer: IsSubscriberAnswer
  ) {
    answer.withView { writeIsSubscriberResponseFrame(methodIndex: methodIndex, requestId: requestId, answer: $0) }
  }
}

/// Writes protobuf fields through a raw pointer into space reserved beforehand.
struct ProtoWriter {
  let base: UnsafeMutableRawPointer
  var offset = 0

  mutating func byte(_ value: UInt8) {
    (base + offset).storeBytes(of: value, as: UInt8.self)
    offset += 1
  }

  mutating func varint(_ value: UInt64) {
    var v = value
    while v >= 0x80 {
      byte(UInt8(truncatingIfNeeded: v) | 0x80)
      v >>= 7
    }
    byte(UInt8(v))
  }

  mutating func varintField(_ tag: UInt8, _ value: UInt64) {
    byte(tag << 3)
    varint(value)
  }

  /// A bytes or string field holding `value` as it is.
  mutating func bytesField(_ tag: UInt8, _ value: UnsafeRawBufferPointer) {
    byte(tag << 3 | 2)
    varint(UInt64(value.count))
    if let source = value.baseAddress { (base + offset).copyMemory(from: source, byteCount: value.count) }
    offset += value.count
  }

  mutating func stringField(_ tag: UInt8, _ value: String) {
    var text = value
    text.withUTF8 { utf8 in
      byte(tag << 3 | 2)
      varint(UInt64(utf8.count))
      if let source = utf8.baseAddress { (base + offset).copyMemory(from: source, byteCount: utf8.count) }
      offset += utf8.count
    }
  }

  /// A string field holding `value`'s decimal digits, written from the end two at a time (one
  /// division per two digits).
  mutating func decimalField(_ tag: UInt8, _ value: UInt64) {
    let digits = Self.decimalDigitCount(value)
    byte(tag << 3 | 2)
    byte(UInt8(digits))
    var v = value
    var end = offset + digits
    while v >= 100 {
      storeDigitPair(UInt8(v % 100), at: end - 2)
      v /= 100
      end -= 2
    }
    if v >= 10 {
      storeDigitPair(UInt8(v), at: end - 2)
    } else {
      (base + end - 1).storeBytes(of: UInt8(ascii: "0") + UInt8(v), as: UInt8.self)
    }
    offset += digits
  }

  private func storeDigitPair(_ pair: UInt8, at position: Int) {
    let ascii = UInt16(UInt8(ascii: "0") + pair / 10) | UInt16(UInt8(ascii: "0") + pair % 10) << 8
    (base + position).storeBytes(of: ascii.littleEndian, toByteOffset: 0, as: UInt16.self)
  }

  /// How many decimal digits `value` has.
  static func decimalDigitCount(_ value: UInt64) -> Int {
    var digits = 1
    var bound: UInt64 = 10
    while value >= bound {
      digits += 1
      if digits == 20 { break }
      bound *= 10
    }
    return digits
  }

}

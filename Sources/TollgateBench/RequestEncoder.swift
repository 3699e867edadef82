import TollgateContract
import TollgateWire

/// Writes request frames straight into a send buffer, without building protobuf messages: the
/// load generator must cost less per request than the server it measures. The bytes are exactly
/// what swift-protobuf writes for the same message (the tests check that).
enum RequestEncoder {
  static let isSubscriberMethod = EntitlementsMethod.isSubscriber.rawValue
  static let getSubscriptionMethod = EntitlementsMethod.getSubscription.rawValue

  /// An `IsSubscriberRequest{user_id: prefix+number, entitlement}` frame.
  static func appendIsSubscriber(
    to buffer: inout [UInt8], requestId: UInt32, userPrefix: [UInt8], userNumber: Int, entitlement: [UInt8]
  ) {
    let userLength = userPrefix.count + decimalDigits(userNumber)
    let payloadLength =
      1 + varintLength(userLength) + userLength + 1 + varintLength(entitlement.count) + entitlement.count
    appendHeader(to: &buffer, method: isSubscriberMethod, length: payloadLength, requestId: requestId)
    appendUserId(to: &buffer, prefix: userPrefix, number: userNumber, length: userLength)
    buffer.append(0x12)  // field 2, length-delimited
    appendVarint(to: &buffer, UInt64(entitlement.count))
    buffer.append(contentsOf: entitlement)
  }

  /// A `GetSubscriptionRequest{user_id: prefix+number}` frame.
  static func appendGetSubscription(to buffer: inout [UInt8], requestId: UInt32, userPrefix: [UInt8], userNumber: Int) {
    let userLength = userPrefix.count + decimalDigits(userNumber)
    appendHeader(
      to: &buffer, method: getSubscriptionMethod, length: 1 + varintLength(userLength) + userLength,
      requestId: requestId)
    appendUserId(to: &buffer, prefix: userPrefix, number: userNumber, length: userLength)
  }

  private static func appendHeader(to buffer: inout [UInt8], method: UInt32, length: Int, requestId: UInt32) {
    RequestFrame.Header(methodIndex: method, messageLength: UInt32(length), requestId: requestId).append(to: &buffer)
  }

  private static func appendUserId(to buffer: inout [UInt8], prefix: [UInt8], number: Int, length: Int) {
    buffer.append(0x0A)  // field 1, length-delimited
    appendVarint(to: &buffer, UInt64(length))
    buffer.append(contentsOf: prefix)
    appendDecimal(to: &buffer, number)
  }

  static func appendVarint(to buffer: inout [UInt8], _ value: UInt64) {
    var v = value
    while v >= 0x80 {
      buffer.append(UInt8(truncatingIfNeeded: v) | 0x80)
      v >>= 7
    }
    buffer.append(UInt8(v))
  }

  static func varintLength(_ value: Int) -> Int {
    var v = UInt64(value)
    var length = 1
    while v >= 0x80 {
      v >>= 7
      length += 1
    }
    return length
  }

  static func decimalDigits(_ value: Int) -> Int {
    var v = value
    var digits = 1
    while v >= 10 {
      v /= 10
      digits += 1
    }
    return digits
  }

  static func appendDecimal(to buffer: inout [UInt8], _ value: Int) {
    let digits = decimalDigits(value)
    let start = buffer.count
    buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
    var v = value
    var index = start + digits - 1
    while true {
      buffer[index] = UInt8(ascii: "0") + UInt8(v % 10)
      v /= 10
      if v == 0 { break }
      index -= 1
    }
  }
}

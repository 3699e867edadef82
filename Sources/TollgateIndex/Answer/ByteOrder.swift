/// The byte order of UTF-8 texts (for NFC text, such as every ASCII id, the order of `String`'s
/// `<`): how GetSubscription's answers are ordered.
enum ByteOrder {
  /// -1, 0 or 1 as `a0 + a1` sorts before, with or after `b0 + b1`.
  static func compare(
    _ a0: UnsafeRawBufferPointer, _ a1: UnsafeRawBufferPointer, _ b0: UnsafeRawBufferPointer,
    _ b1: UnsafeRawBufferPointer
  ) -> Int {
    let aCount = a0.count + a1.count
    let bCount = b0.count + b1.count
    var index = 0
    while index < aCount, index < bCount {
      let a = index < a0.count ? a0[index] : a1[index - a0.count]
      let b = index < b0.count ? b0[index] : b1[index - b0.count]
      if a != b { return a < b ? -1 : 1 }
      index += 1
    }
    return aCount == bCount ? 0 : (aCount < bCount ? -1 : 1)
  }

  /// -1, 0 or 1 as `a` sorts before, with or after `b`: SQLite's BINARY collation.
  static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    for index in 0..<min(a.count, b.count) where a[index] != b[index] {
      return a[index] < b[index] ? -1 : 1
    }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
  }

  /// The order of two numbers' decimal digits as text ("10" before "9"), without writing them.
  static func compareDecimalText(_ a: UInt64, _ b: UInt64) -> Int {
    let aDigits = digitCount(a)
    let bDigits = digitCount(b)
    if aDigits == bDigits { return a == b ? 0 : (a < b ? -1 : 1) }
    // The longer one's leading digits against the shorter one; equal, the shorter comes first.
    if aDigits < bDigits {
      let leading = b / power(of: bDigits - aDigits)
      return a <= leading ? -1 : 1
    }
    let leading = a / power(of: aDigits - bDigits)
    return leading < b ? -1 : 1
  }

  /// Calls `body` with `number`'s decimal digits.
  static func withDecimalText<Result>(of number: UInt64, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var value = number
      var start = 20
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") + UInt8(value % 10)
        value /= 10
      } while value > 0
      return body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(digits)[start..<20]))
    }
  }

  private static func digitCount(_ value: UInt64) -> Int {
    var digits = 1
    var rest = value
    while rest >= 10 {
      rest /= 10
      digits += 1
    }
    return digits
  }

  private static func power(of exponent: Int) -> UInt64 {
    var result: UInt64 = 1
    for _ in 0..<exponent { result *= 10 }
    return result
  }
}

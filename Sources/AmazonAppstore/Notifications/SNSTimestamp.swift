import TollgateCore

/// SNS's `Timestamp` (`2022-07-28T21:23:58.317Z`, UTC, milliseconds optional) read into ms since
/// the epoch. Anything else (another offset, a malformed date) is not a timestamp.
enum SNSTimestamp {
  static func milliseconds(_ text: String) -> Int64? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
    func number(_ range: Range<Int>) -> Int64? {
      var value: Int64 = 0
      for index in range {
        let byte = bytes[index]
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), bytes[4] == UInt8(ascii: "-"), let month = number(5..<7),
      bytes[7] == UInt8(ascii: "-"), let day = number(8..<10), bytes[10] == UInt8(ascii: "T"),
      let hour = number(11..<13), bytes[13] == UInt8(ascii: ":"), let minute = number(14..<16),
      bytes[16] == UInt8(ascii: ":"), let second = number(17..<19),
      (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59, second <= 60
    else { return nil }
    var millis: Int64 = 0
    let fraction = bytes.count - 1 - 19
    if fraction > 0 {
      guard bytes[19] == UInt8(ascii: "."), fraction >= 2, fraction <= 10, let digits = number(20..<(bytes.count - 1))
      else {
        return nil
      }
      // Keep milliseconds: pad or truncate to three digits.
      let count = fraction - 1
      millis = count >= 3 ? digits / power(count - 3) : digits * power(3 - count)
    }
    let days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
    return (days * 86_400 + hour * 3_600 + minute * 60 + second) * 1_000 + millis
  }

  private static func power(_ exponent: Int) -> Int64 {
    var result: Int64 = 1
    for _ in 0..<min(exponent, 18) { result *= 10 }
    return result
  }
}

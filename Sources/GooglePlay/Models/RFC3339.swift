import TollgateCore

/// Google's RFC 3339 timestamps (`"2026-10-05T14:32:11.512Z"`), read once at the edge into Int64
/// milliseconds since the epoch.
///
/// Fractional seconds keep their milliseconds (digits past the third truncate toward the earlier
/// instant); an offset other than `Z` (`+02:00`) is applied. Anything else is not a timestamp.
public enum RFC3339 {
  /// The instant `text` names, in ms since the epoch; `nil` when it is not an RFC 3339 date-time.
  public static func milliseconds(_ text: String) -> Int64? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 20 else { return nil }
    func number(_ range: Range<Int>) -> Int64? {
      var value: Int64 = 0
      for index in range {
        guard index < bytes.count, let digit = digitValue(bytes[index]) else { return nil }
        value = value * 10 + digit
      }
      return value
    }
    guard let year = number(0..<4), bytes[4] == UInt8(ascii: "-"), let month = number(5..<7),
      bytes[7] == UInt8(ascii: "-"), let day = number(8..<10),
      [UInt8(ascii: "T"), UInt8(ascii: "t")].contains(bytes[10]), let hour = number(11..<13),
      bytes[13] == UInt8(ascii: ":"), let minute = number(14..<16), bytes[16] == UInt8(ascii: ":"),
      let second = number(17..<19)
    else { return nil }
    guard (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day), hour <= 23,
      minute <= 59, second <= 60
    else { return nil }

    var index = 19
    var millis: Int64 = 0
    if bytes[index] == UInt8(ascii: ".") {
      index += 1
      var digits = 0
      while index < bytes.count, let digit = digitValue(bytes[index]) {
        if digits < 3 { millis = millis * 10 + digit }
        digits += 1
        index += 1
      }
      guard digits > 0 else { return nil }
      for _ in digits..<max(digits, 3) { millis *= 10 }
    }
    guard index < bytes.count else { return nil }
    var offsetMinutes: Int64 = 0
    switch bytes[index] {
    case UInt8(ascii: "Z"), UInt8(ascii: "z"):
      index += 1
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      guard index + 6 == bytes.count, let hours = number((index + 1)..<(index + 3)),
        bytes[index + 3] == UInt8(ascii: ":"), let minutes = number((index + 4)..<(index + 6)), hours <= 23,
        minutes <= 59
      else { return nil }
      offsetMinutes = (hours * 60 + minutes) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
      index += 6
    default:
      return nil
    }
    guard index == bytes.count else { return nil }
    let days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetMinutes * 60
    return seconds * 1_000 + millis
  }

  private static func digitValue(_ byte: UInt8) -> Int64? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int64(byte - UInt8(ascii: "0")) : nil
  }
}

import TollgateCore

/// Times as the admin API shows them: RFC 3339 in UTC with milliseconds
/// (`2026-11-27T05:11:00.123Z`), converted exactly from and to Int64 ms since the epoch through
/// Core's `CivilDate` (no floating point, no Foundation). A text is parsed once, where it enters
/// (a request's `until`), and everything inside stays Int64 ms.
public enum ISO8601Text {
  /// `ms` as RFC 3339 UTC with milliseconds; "" for `Int64.max` (a lifetime purchase: never ends)
  /// and for a time outside years 0001–9999.
  public static func text(ms: Int64) -> String {
    guard ms != Int64.max, ms >= minimumMs, ms <= maximumMs else { return "" }
    let (days, dayMs) = floorDivision(ms, 86_400_000)
    let date = CivilDate(daysSinceEpoch: days)
    let seconds = dayMs / 1_000
    return "\(padded(date.year, 4))-\(padded(date.month, 2))-\(padded(date.day, 2))T"
      + "\(padded(seconds / 3_600, 2)):\(padded(seconds / 60 % 60, 2)):\(padded(seconds % 60, 2))."
      + "\(padded(dayMs % 1_000, 3))Z"
  }

  /// The text for an optional time: "" for nil.
  public static func text(ms: Int64?) -> String { ms.map { text(ms: $0) } ?? "" }

  /// The ms an RFC 3339 date-time names (`2026-11-27T05:11:00Z`, `…00.5+01:00`, `t` and `z`
  /// in lower case too); nil for anything else, a day that does not exist, or a leap second.
  /// Digits of a fraction past milliseconds are dropped (truncated toward the earlier time).
  public static func ms(_ text: String) -> Int64? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes.count <= 64 else { return nil }
    var reader = Reader(bytes: bytes)
    guard let year = reader.number(4), reader.skip("-"), let month = reader.number(2), reader.skip("-"),
      let day = reader.number(2), reader.skip("T") || reader.skip("t"), let hour = reader.number(2),
      reader.skip(":"), let minute = reader.number(2), reader.skip(":"), let second = reader.number(2)
    else { return nil }
    let date = CivilDate(year: year, month: month, day: day)
    guard year >= 1, date.isValid, hour < 24, minute < 60, second < 60 else { return nil }
    var millis: Int64 = 0
    if reader.skip(".") {
      var digits = 0
      while let digit = reader.digit() {
        if digits < 3 { millis = millis * 10 + digit }
        digits += 1
      }
      guard digits > 0 else { return nil }
      for _ in digits..<max(digits, 3) { millis *= 10 }
    }
    var offsetMinutes: Int64 = 0
    if !(reader.skip("Z") || reader.skip("z")) {
      let sign: Int64
      if reader.skip("+") {
        sign = 1
      } else if reader.skip("-") {
        sign = -1
      } else {
        return nil
      }
      guard let offsetHours = reader.number(2), reader.skip(":"), let offsetMinute = reader.number(2),
        offsetHours < 24, offsetMinute < 60
      else { return nil }
      offsetMinutes = sign * (offsetHours * 60 + offsetMinute)
    }
    guard reader.atEnd else { return nil }
    let local = ((date.daysSinceEpoch * 24 + hour) * 60 + minute) * 60 + second
    return (local - offsetMinutes * 60) * 1_000 + millis
  }

  /// 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z.
  static let minimumMs = CivilDate(year: 1, month: 1, day: 1).daysSinceEpoch * 86_400_000
  static let maximumMs = (CivilDate(year: 9_999, month: 12, day: 31).daysSinceEpoch + 1) * 86_400_000 - 1

  private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
    let remainder = value % divisor
    return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
  }

  private static func padded(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
  }

  /// Reads ASCII fields off the front of the text.
  private struct Reader {
    let bytes: [UInt8]
    var position = 0

    var atEnd: Bool { position == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
      guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
      position += 1
      return true
    }

    mutating func digit() -> Int64? {
      guard position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) else {
        return nil
      }
      defer { position += 1 }
      return Int64(bytes[position] - UInt8(ascii: "0"))
    }

    /// Exactly `count` digits.
    mutating func number(_ count: Int) -> Int64? {
      var value: Int64 = 0
      for _ in 0..<count {
        guard let digit = digit() else { return nil }
        value = value * 10 + digit
      }
      return value
    }
  }
}

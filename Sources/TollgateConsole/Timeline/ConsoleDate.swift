import Foundation

/// Dates as the operator reads them on the console: in the operator's time zone (the `tz` cookie,
/// an IANA name; UTC by default), with its offset, so a date is never ambiguous.
public enum ConsoleDate {
  /// "2026-11-27 14:03:05 +01:00"; "no end" for `Int64.max` (a lifetime purchase).
  public static func text(ms: Int64, timeZone: TimeZone) -> String {
    guard let parts = Parts(ms: ms, timeZone: timeZone) else { return "no end" }
    return "\(parts.day) \(pad(parts.hour)):\(pad(parts.minute)):\(pad(parts.second)) \(parts.offset)"
  }

  /// "2026-11-27": the calendar day in the operator's time zone.
  public static func day(ms: Int64, timeZone: TimeZone) -> String {
    Parts(ms: ms, timeZone: timeZone)?.day ?? "no end"
  }

  /// "2026-11-27T13:03:05Z": the instant in UTC, for a `<time datetime>` attribute.
  static func machine(ms: Int64) -> String {
    guard let parts = Parts(ms: ms, timeZone: utc) else { return "" }
    return "\(parts.day)T\(pad(parts.hour)):\(pad(parts.minute)):\(pad(parts.second))Z"
  }

  static let utc = TimeZone(secondsFromGMT: 0) ?? .current

  /// A Gregorian calendar in `timeZone`, weeks starting on Monday (ISO 8601).
  static func calendar(_ timeZone: TimeZone) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    calendar.firstWeekday = 2
    return calendar
  }

  /// The latest time a date is shown for: past it (year 9999) a time reads as having no end.
  static let latestMs: Int64 = 253_402_300_799_000

  static func date(ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1_000) }

  static func pad(_ value: Int, width: Int = 2) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
  }

  private struct Parts {
    var day: String
    var hour: Int
    var minute: Int
    var second: Int
    var offset: String

    init?(ms: Int64, timeZone: TimeZone) {
      guard ms < ConsoleDate.latestMs, ms > -ConsoleDate.latestMs else { return nil }
      let date = ConsoleDate.date(ms: ms)
      let c = ConsoleDate.calendar(timeZone).dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
      day = "\(ConsoleDate.pad(c.year ?? 0, width: 4))-\(ConsoleDate.pad(c.month ?? 0))-\(ConsoleDate.pad(c.day ?? 0))"
      hour = c.hour ?? 0
      minute = c.minute ?? 0
      second = c.second ?? 0
      let seconds = timeZone.secondsFromGMT(for: date)
      let sign = seconds < 0 ? "-" : "+"
      offset = "\(sign)\(ConsoleDate.pad(abs(seconds) / 3600)):\(ConsoleDate.pad(abs(seconds) % 3600 / 60))"
    }
  }
}

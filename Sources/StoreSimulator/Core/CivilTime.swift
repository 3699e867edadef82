import TollgateCore

/// A UTC moment in calendar fields, for the dates the stores write as text (Google's RFC 3339,
/// Apple's legacy `Etc/GMT` dates). Times are ms since the epoch everywhere else.
struct CivilTime {
  var year: Int64
  var month: Int64
  var day: Int64
  var hour: Int64
  var minute: Int64
  var second: Int64
  var millisecond: Int64

  init(ms: Int64) {
    let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
    millisecond = ms - seconds * 1000
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let secondOfDay = seconds - days * 86_400
    hour = secondOfDay / 3600
    minute = secondOfDay / 60 % 60
    second = secondOfDay % 60
    let date = CivilDate(daysSinceEpoch: days)
    (year, month, day) = (date.year, date.month, date.day)
  }

  /// `value` in decimal, zero-padded to `width` digits.
  static func pad(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
  }
}

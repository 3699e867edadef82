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
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    day = doy - (153 * mp + 2) / 5 + 1
    month = mp < 10 ? mp + 3 : mp - 9
    year = yoe + era * 400 + (month <= 2 ? 1 : 0)
  }

  /// `value` in decimal, zero-padded to `width` digits.
  static func pad(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
  }
}

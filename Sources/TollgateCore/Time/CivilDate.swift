/// A proleptic Gregorian date in UTC, and the one conversion between dates and days since
/// 1970-01-01 (Howard Hinnant's `days_from_civil` and `civil_from_days`): the stores' date texts
/// are parsed with it at the edge, and calendar durations are added with it.
public struct CivilDate: Sendable, Hashable {
  public var year: Int64
  /// 1 to 12.
  public var month: Int64
  /// 1 to 31.
  public var day: Int64

  public init(year: Int64, month: Int64, day: Int64) {
    self.year = year
    self.month = month
    self.day = day
  }

  public init(daysSinceEpoch: Int64) {
    let z = daysSinceEpoch + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  }

  /// Days since 1970-01-01 (negative before).
  public var daysSinceEpoch: Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  public static func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2: isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  public static func isLeap(_ year: Int64) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

  /// Whether this is a real date (a day that exists in its month).
  public var isValid: Bool { (1...12).contains(month) && day >= 1 && day <= Self.daysIn(month: month, year: year) }
}

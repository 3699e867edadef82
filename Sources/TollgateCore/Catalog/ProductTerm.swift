/// How long a purchase the store gives no expiry for grants its entitlements: an Apple
/// non-renewing subscription, non-consumable or consumable, a Google Play one-time product, an
/// Amazon entitlement or consumable. The store sells these without an end date; the catalog
/// says what the product means (`ProductConfig.duration`).
///
/// In the config file it is a string: `"lifetime"`, or an ISO 8601 duration (`"P1M"`, `"P1Y"`,
/// `"P30D"`, `"P2W"`, `"PT12H"`, `"P1Y6M"`). Years and months are calendar units in UTC, as the
/// stores count a month: a month after 31 January is the last day of February.
public enum ProductTerm: Sendable, Hashable, Codable, CustomStringConvertible {
  /// Grants for as long as the purchase stands (until refunded or revoked).
  case lifetime
  /// Grants from the purchase for this long.
  case duration(CalendarDuration)

  /// Parses `"lifetime"` or an ISO 8601 duration; nil for anything else.
  public init?(parsing text: String) {
    if text == "lifetime" {
      self = .lifetime
    } else if let duration = CalendarDuration(iso8601: text) {
      self = .duration(duration)
    } else {
      return nil
    }
  }

  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let term = ProductTerm(parsing: text) else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription:
            "a product duration is \"lifetime\" or an ISO 8601 duration such as \"P1M\", \"P1Y\" or \"P30D\"; "
            + "got \"\(String(text.prefix(40)))\""))
    }
    self = term
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }

  public var description: String {
    switch self {
    case .lifetime: "lifetime"
    case .duration(let duration): duration.description
    }
  }

  /// When a purchase made at `startMs` stops granting: `Int64.max` for a lifetime.
  public func end(fromMs startMs: Int64) -> Int64 {
    switch self {
    case .lifetime: Int64.max
    case .duration(let duration): duration.adding(toMs: startMs)
    }
  }
}

/// An ISO 8601 duration with calendar years and months (`PnYnMnWnDTnHnMnS`, whole numbers).
public struct CalendarDuration: Sendable, Hashable, CustomStringConvertible {
  public var months: Int64
  public var days: Int64
  public var milliseconds: Int64

  public init(months: Int64 = 0, days: Int64 = 0, milliseconds: Int64 = 0) {
    self.months = months
    self.days = days
    self.milliseconds = milliseconds
  }

  /// Parses `PnYnMnWnDTnHnMnS` (each part optional, at least one, whole non-negative numbers, a
  /// total above zero and below 1,000 years).
  public init?(iso8601 text: String) {
    var rest = Substring(text)
    guard rest.first == "P", rest.count <= 40 else { return nil }
    rest = rest.dropFirst()
    var inTime = false
    var number: Int64?
    var parts = 0
    var timeParts = 1
    var result = CalendarDuration()
    for character in rest {
      if let digit = character.wholeNumberValue, character.isASCII {
        let (shifted, overflow) = (number ?? 0).multipliedReportingOverflow(by: 10)
        guard !overflow, shifted <= 100_000_000 else { return nil }
        number = shifted + Int64(digit)
        continue
      }
      if character == "T" {
        guard !inTime, number == nil else { return nil }
        inTime = true
        timeParts = 0
        continue
      }
      guard let value = number else { return nil }
      number = nil
      parts += 1
      if inTime { timeParts += 1 }
      switch (inTime, character) {
      case (false, "Y"): result.months += value * 12
      case (false, "M"): result.months += value
      case (false, "W"): result.days += value * 7
      case (false, "D"): result.days += value
      case (true, "H"): result.milliseconds += value * 3_600_000
      case (true, "M"): result.milliseconds += value * 60_000
      case (true, "S"): result.milliseconds += value * 1_000
      default: return nil
      }
    }
    let roughDays = result.months * 31 + result.days + result.milliseconds / 86_400_000
    guard number == nil, parts > 0, timeParts > 0, roughDays < 366_000,
      result.months > 0 || result.days > 0 || result.milliseconds > 0
    else { return nil }
    self = result
  }

  public var description: String {
    var text = "P"
    if months >= 12 { text += "\(months / 12)Y" }
    if months % 12 > 0 { text += "\(months % 12)M" }
    if days > 0 { text += "\(days)D" }
    if milliseconds > 0 {
      let seconds = milliseconds / 1_000
      text += "T\(seconds)S"
    }
    return text == "P" ? "PT0S" : text
  }

  /// `startMs` moved on by this duration: months first (the day of the month clamped to the new
  /// month's length, in UTC), then days, then the time part.
  public func adding(toMs startMs: Int64) -> Int64 {
    let msPerDay: Int64 = 86_400_000
    var dayNumber = startMs >= 0 ? startMs / msPerDay : (startMs - msPerDay + 1) / msPerDay
    let timeOfDay = startMs - dayNumber * msPerDay
    if months > 0 {
      let civil = CivilDate(daysSinceEpoch: dayNumber)
      let monthIndex = civil.year * 12 + (civil.month - 1) + months
      let year = monthIndex >= 0 ? monthIndex / 12 : (monthIndex - 11) / 12
      let month = monthIndex - year * 12 + 1
      let day = min(civil.day, CivilDate.daysIn(month: month, year: year))
      dayNumber = CivilDate(year: year, month: month, day: day).daysSinceEpoch
    }
    dayNumber += days
    return dayNumber * msPerDay + timeOfDay + milliseconds
  }
}

import Foundation

/// Durations as the simulator reads them: ISO 8601 periods the way App Store Connect writes
/// them (`P1M`, `P1W`, `P1Y`, `P3D`, `PT5M`), shorthand (`31d`, `12h`, `90m`, `30s`, `500ms`,
/// `2w`), or a bare number of milliseconds. A month is 30 days and a year 365, as in Apple's
/// sandbox arithmetic at human scale.
public enum SimDuration {
  public static let secondMs: Int64 = 1_000
  public static let minuteMs: Int64 = 60_000
  public static let hourMs: Int64 = 3_600_000
  public static let dayMs: Int64 = 86_400_000

  /// Milliseconds, or `nil` when `text` is not a duration.
  public static func milliseconds(_ text: String) -> Int64? {
    let text = text.trimmingCharacters(in: .whitespaces)
    if let ms = Int64(text), ms >= 0 { return ms }
    if text.hasPrefix("P") { return iso8601(text.dropFirst()) }
    let units: [(String, Int64)] = [
      ("ms", 1), ("w", 7 * dayMs), ("d", dayMs), ("h", hourMs), ("m", minuteMs), ("s", secondMs),
    ]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
      guard let value = Int64(text.dropLast(suffix.count)), value >= 0 else { return nil }
      return value * scale
    }
    return nil
  }

  private static func iso8601(_ body: Substring) -> Int64? {
    var total: Int64 = 0
    var digits = ""
    var inTime = false
    for character in body {
      if character == "T" {
        inTime = true
        continue
      }
      if character.isNumber {
        digits.append(character)
        continue
      }
      guard let value = Int64(digits) else { return nil }
      digits = ""
      let scale: Int64? =
        switch (character, inTime) {
        case ("Y", false): 365 * dayMs
        case ("M", false): 30 * dayMs
        case ("W", false): 7 * dayMs
        case ("D", false): dayMs
        case ("H", true): hourMs
        case ("M", true): minuteMs
        case ("S", true): secondMs
        default: nil
        }
      guard let scale else { return nil }
      total += value * scale
    }
    return digits.isEmpty && total > 0 ? total : nil
  }
}

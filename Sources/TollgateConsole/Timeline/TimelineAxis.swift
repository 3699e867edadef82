import Foundation

/// The time axis every chart of a user shares: the range it spans and its ticks at calendar
/// boundaries (days, weeks, months, quarters, years) in the operator's time zone.
struct TimelineAxis: Sendable {
  var fromMs: Int64
  var untilMs: Int64
  var ticks: [Tick]

  struct Tick: Sendable, Hashable {
    var atMs: Int64
    var label: String
  }

  static let day: Int64 = 86_400_000
  /// At most this many ticks, so their labels never overlap.
  static let maxTicks = 8

  /// The range of `marks` and `nowMs`, padded a little; an end far past now (a long grant, a
  /// yearly period) is cut at now plus half the history (a month at least), and its span runs
  /// off the right edge.
  init(marks: [TimelineMark], nowMs: Int64, timeZone: TimeZone) {
    let starts = marks.map(\.fromMs) + [nowMs]
    let lo = starts.min() ?? nowMs
    let ends = marks.compactMap(\.untilMs).filter { $0 < ConsoleDate.latestMs }
    var hi = max(nowMs, ends.max() ?? nowMs, starts.max() ?? nowMs)
    hi = min(hi, nowMs + max((nowMs - lo) / 2, 30 * Self.day))
    if hi <= lo { hi = lo + Self.day }
    let pad = max((hi - lo) / 40, 60_000)
    fromMs = lo - pad
    untilMs = hi + pad
    ticks = Self.ticks(from: fromMs, until: untilMs, timeZone: timeZone)
  }

  /// Ticks at local midnights of days, Mondays, first days of months, quarters or years: the
  /// finest step that gives at most `maxTicks`.
  static func ticks(from: Int64, until: Int64, timeZone: TimeZone) -> [Tick] {
    let calendar = ConsoleDate.calendar(timeZone)
    let steps: [(Calendar.Component, Int)] = [
      (.day, 1), (.day, 2), (.weekOfYear, 1), (.weekOfYear, 2), (.month, 1), (.month, 3), (.month, 6), (.year, 1),
      (.year, 2), (.year, 5), (.year, 10),
    ]
    let start = ConsoleDate.date(ms: from)
    for (component, count) in steps {
      guard var at = first(component, count: count, onOrAfter: start, calendar: calendar) else { continue }
      var ticks: [Tick] = []
      while ticks.count <= maxTicks {
        let ms = Int64((at.timeIntervalSince1970 * 1_000).rounded())
        if ms > until { break }
        ticks.append(Tick(atMs: ms, label: label(ms, component: component, timeZone: timeZone)))
        guard let next = calendar.date(byAdding: component, value: count, to: at) else { break }
        at = next
      }
      if ticks.count <= maxTicks { return ticks }
    }
    return []
  }

  /// The first boundary of `component` (every `count`th: even months of a quarter step, years
  /// divisible by `count`) at or after `date`.
  private static func first(
    _ component: Calendar.Component, count: Int, onOrAfter date: Date, calendar: Calendar
  ) -> Date? {
    let unit: Calendar.Component = component == .weekOfYear ? .weekOfYear : component
    guard var at = calendar.dateInterval(of: unit, for: date)?.start else { return nil }
    if at < date, let next = calendar.date(byAdding: component, value: 1, to: at) { at = next }
    for _ in 0..<12 {
      let value = calendar.component(component == .weekOfYear ? .day : component, from: at)
      let aligned =
        switch component {
        case .month: (value - 1) % count == 0
        case .year: value % count == 0
        default: true
        }
      if aligned { return at }
      guard let next = calendar.date(byAdding: component, value: 1, to: at) else { return nil }
      at = next
    }
    return at
  }

  private static func label(_ ms: Int64, component: Calendar.Component, timeZone: TimeZone) -> String {
    let day = ConsoleDate.day(ms: ms, timeZone: timeZone)
    switch component {
    case .year: return String(day.prefix(4))
    case .month: return String(day.prefix(7))
    default: return day
    }
  }
}

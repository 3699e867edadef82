import Foundation
import TollgateSupport

/// A user's timeline drawn as inline SVG: one figure per purchase (and one for promotional
/// grants) on one shared time axis in the operator's time zone, lanes for periods, billing
/// trouble and events; every mark has a `<title>` (its hover text: what, the exact dates, the
/// evidence) and an `aria-label`, each figure a list of the same marks in text, and one legend
/// for the kinds drawn. No script: it reads the same without JavaScript. Pure.
public enum TimelineSVG {
  /// The drawing of `timeline` as an HTML fragment, "now" being `timeline.evaluatedAtMs`.
  public static func render(_ timeline: Timeline, timeZone: TimeZone) -> String {
    let charts = TimelineLayout.charts(timeline, timeZone: timeZone)
    guard !charts.isEmpty else { return "<div class=\"timelines\"><p>Nothing to draw yet.</p></div>" }
    let axis = TimelineAxis(marks: charts.flatMap(\.marks), nowMs: timeline.evaluatedAtMs, timeZone: timeZone)
    var html = "<div class=\"timelines\">"
    html += "<p class=\"timeline-zone\">Dates in \(HTML.escape(timeZone.identifier)).</p>"
    for chart in charts {
      html += figure(chart, axis: axis, nowMs: timeline.evaluatedAtMs, timeZone: timeZone)
    }
    html += TimelineLegend.render(Set(charts.flatMap { $0.marks.map(\.style) }))
    return html + "</div>"
  }

  // MARK: Geometry

  static let width = 960.0
  static let plotLeft = 96.0
  static let plotRight = 944.0
  static let laneHeight = 26.0
  static let laneGap = 6.0
  static let top = 6.0

  static func figure(_ chart: TimelineChart, axis: TimelineAxis, nowMs: Int64, timeZone: TimeZone) -> String {
    // A lane with nothing in it is left out; the events lane (with now) always stays.
    let lanes = TimelineMark.Lane.allCases.filter { lane in
      lane == .events || chart.marks.contains { $0.style.lane == lane }
    }
    func laneTop(_ lane: TimelineMark.Lane) -> Double {
      top + Double(lanes.firstIndex(of: lane) ?? 0) * (laneHeight + laneGap)
    }
    let axisY = top + Double(lanes.count) * (laneHeight + laneGap)
    let height = axisY + 24
    let id = chart.id
    let heading = HTML.escape(chart.heading)
    var svg = """
      <svg xmlns="http://www.w3.org/2000/svg" class="timeline-svg" viewBox="0 0 \(n(width)) \(n(height))" \
      width="100%" preserveAspectRatio="xMinYMin meet" role="group" aria-labelledby="\(id)-title" \
      font-family="sans-serif" font-size="11">\
      <title id="\(id)-title">Timeline of \(heading), \
      \(HTML.escape(ConsoleDate.day(ms: axis.fromMs, timeZone: timeZone))) to \
      \(HTML.escape(ConsoleDate.day(ms: axis.untilMs, timeZone: timeZone))), \(HTML.escape(timeZone.identifier))</title>\
      <defs><pattern id="\(id)-hatch" width="6" height="6" patternUnits="userSpaceOnUse" \
      patternTransform="rotate(45)"><rect width="3" height="6" fill="\(TimelineMark.Style.refundedPart.color)"/>\
      </pattern></defs>
      """
    svg += "<g class=\"lanes\" aria-hidden=\"true\">"
    for lane in lanes {
      let y = laneTop(lane)
      svg += "<rect x=\"\(n(plotLeft))\" y=\"\(n(y))\" width=\"\(n(plotRight - plotLeft))\" "
      svg += "height=\"\(n(laneHeight))\" fill=\"#f4f6f7\"/>"
      svg += "<text x=\"4\" y=\"\(n(y + laneHeight / 2 + 4))\" fill=\"#34495e\">\(lane.label)</text>"
    }
    svg += "</g><g class=\"axis\" aria-hidden=\"true\">"
    svg +=
      "<line x1=\"\(n(plotLeft))\" y1=\"\(n(axisY))\" x2=\"\(n(plotRight))\" y2=\"\(n(axisY))\" stroke=\"#7f8c8d\"/>"
    for tick in axis.ticks {
      let x = xOf(tick.atMs, axis)
      svg += "<line x1=\"\(n(x))\" y1=\"\(n(top))\" x2=\"\(n(x))\" y2=\"\(n(axisY + 4))\" stroke=\"#d5dbdb\"/>"
      svg += "<text x=\"\(n(x))\" y=\"\(n(axisY + 16))\" text-anchor=\"middle\" fill=\"#34495e\">"
      svg += "\(HTML.escape(tick.label))</text>"
    }
    svg += "</g><g class=\"marks\">"
    let nowX = xOf(nowMs, axis)
    svg += "<line class=\"now-line\" aria-hidden=\"true\" x1=\"\(n(nowX))\" y1=\"\(n(top - 2))\" x2=\"\(n(nowX))\" "
    svg += "y2=\"\(n(axisY))\" stroke=\"\(TimelineMark.Style.now.color)\" stroke-dasharray=\"3 2\"/>"
    // Spans first, so points are drawn over them.
    let ordered = chart.marks.filter(\.isSpan) + chart.marks.filter { !$0.isSpan }
    for mark in ordered {
      svg += self.mark(mark, chartId: id, y: laneTop(mark.style.lane), axis: axis)
    }
    svg += "</g></svg>"
    var list = "<details class=\"timeline-list\"><summary>The same as a list</summary><ol>"
    for mark in chart.marks.sorted(by: { $0.fromMs < $1.fromMs }) {
      list +=
        "<li data-kind=\"\(mark.style.rawValue)\">\(HTML.escape(mark.title.replacingOccurrences(of: "\n", with: "; ")))"
      if let link = mark.link { list += " (<a href=\"#\(link)\">see that purchase</a>)" }
      list += "</li>"
    }
    list += "</ol></details>"
    return "<figure class=\"timeline\" id=\"\(id)\"><figcaption>\(heading)</figcaption>\(svg)\(list)</figure>"
  }

  /// One mark: a `<g>` with its kind and exact times as data attributes, its hover text as the
  /// first child `<title>` and as `aria-label`; wrapped in a link to another chart when it has one.
  static func mark(_ mark: TimelineMark, chartId: String, y: Double, axis: TimelineAxis) -> String {
    let title = HTML.escape(mark.title)
    let label = HTML.escape(mark.title.replacingOccurrences(of: "\n", with: "; "))
    var attributes = "class=\"mark mark-\(mark.style.rawValue)\" data-kind=\"\(mark.style.rawValue)\" "
    attributes += "data-from=\"\(mark.fromMs)\""
    if mark.isSpan { attributes += " data-until=\"\(mark.untilMs.map(String.init) ?? "none")\"" }
    var body = "<g \(attributes) role=\"img\" aria-label=\"\(label)\"><title>\(title)</title>"
    let x = xOf(mark.fromMs, axis)
    if mark.isSpan {
      let openEnded = mark.untilMs.map { $0 > axis.untilMs } ?? true
      let x2 = openEnded ? plotRight : xOf(mark.untilMs ?? axis.untilMs, axis)
      let fill = mark.style == .refundedPart ? "url(#\(chartId)-hatch)" : mark.style.color
      let inset = mark.style == .refundedPart ? 7.0 : 4.0
      body += "<rect x=\"\(n(x))\" y=\"\(n(y + inset))\" width=\"\(n(max(2, x2 - x)))\" "
      body += "height=\"\(n(laneHeight - 2 * inset))\" fill=\"\(fill)\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>"
      if openEnded {
        let cy = y + laneHeight / 2
        body +=
          "<path d=\"M\(n(plotRight)) \(n(cy - 7)) L\(n(plotRight + 8)) \(n(cy)) L\(n(plotRight)) \(n(cy + 7)) Z\" "
        body += "fill=\"\(mark.style.color)\"/>"
      }
    } else {
      body += shape(mark.style, x: x, y: y + laneHeight / 2)
    }
    body += "</g>"
    guard let link = mark.link else { return body }
    return "<a href=\"#\(link)\">\(body)</a>"
  }

  /// A point mark's shape centred at (x, y).
  static func shape(_ style: TimelineMark.Style, x: Double, y: Double) -> String {
    let color = style.color
    switch style.shape {
    case .bar:
      return "<rect x=\"\(n(x - 7))\" y=\"\(n(y - 5))\" width=\"14\" height=\"10\" fill=\"\(color)\"/>"
    case .circle:
      return "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"5\" fill=\"\(color)\" stroke=\"#ffffff\"/>"
    case .ring:
      return
        "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"4.5\" fill=\"#ffffff\" stroke=\"\(color)\" stroke-width=\"2.5\"/>"
    case .noEntry:
      return "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"5.5\" fill=\"#ffffff\" stroke=\"\(color)\" stroke-width=\"2\"/>"
        + "<path d=\"M\(n(x - 4)) \(n(y + 4)) L\(n(x + 4)) \(n(y - 4))\" stroke=\"\(color)\" stroke-width=\"2\"/>"
    case .arrowRight:
      return path("M\(n(x - 6)) \(n(y - 7)) L\(n(x + 7)) \(n(y)) L\(n(x - 6)) \(n(y + 7)) Z", fill: color)
    case .arrowLeft:
      return path("M\(n(x + 6)) \(n(y - 7)) L\(n(x - 7)) \(n(y)) L\(n(x + 6)) \(n(y + 7)) Z", fill: color)
    case .diamond:
      return path("M\(n(x)) \(n(y - 7)) L\(n(x + 7)) \(n(y)) L\(n(x)) \(n(y + 7)) L\(n(x - 7)) \(n(y)) Z", fill: color)
    case .triangleUp:
      return path("M\(n(x)) \(n(y - 7)) L\(n(x + 7)) \(n(y + 6)) L\(n(x - 7)) \(n(y + 6)) Z", fill: color)
    case .triangleDown:
      return path("M\(n(x)) \(n(y + 7)) L\(n(x + 7)) \(n(y - 6)) L\(n(x - 7)) \(n(y - 6)) Z", fill: color)
    case .square:
      return "<rect x=\"\(n(x - 5))\" y=\"\(n(y - 5))\" width=\"10\" height=\"10\" fill=\"none\" stroke=\"\(color)\" "
        + "stroke-width=\"2.5\"/>"
    case .cross:
      return "<path d=\"M\(n(x - 5)) \(n(y - 5)) L\(n(x + 5)) \(n(y + 5)) M\(n(x - 5)) \(n(y + 5)) L\(n(x + 5)) "
        + "\(n(y - 5))\" stroke=\"\(color)\" stroke-width=\"2.5\" fill=\"none\"/>"
    case .pin:
      return
        "<path d=\"M\(n(x)) \(n(y - 9)) L\(n(x + 5)) \(n(y - 2)) L\(n(x)) \(n(y + 5)) L\(n(x - 5)) \(n(y - 2)) Z\" "
        + "fill=\"\(color)\"/>"
    }
  }

  private static func path(_ d: String, fill: String) -> String {
    "<path d=\"\(d)\" fill=\"\(fill)\" stroke=\"#ffffff\"/>"
  }

  /// Where `ms` falls on the plot, clamped to it.
  static func xOf(_ ms: Int64, _ axis: TimelineAxis) -> Double {
    let span = Double(axis.untilMs - axis.fromMs)
    let fraction = span > 0 ? Double(ms - axis.fromMs) / span : 0
    return plotLeft + min(1, max(0, fraction)) * (plotRight - plotLeft)
  }

  /// A coordinate with one decimal.
  static func n(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    let sign = tenths < 0 ? "-" : ""
    let magnitude = abs(tenths)
    return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
  }
}

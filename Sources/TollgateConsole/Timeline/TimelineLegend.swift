/// The legend under a user's timelines: each kind of mark drawn, its swatch (the same shape and
/// colour as in the drawing) and its name, as an HTML list.
enum TimelineLegend {
  static func render(_ styles: Set<TimelineMark.Style>) -> String {
    var html = "<ul class=\"timeline-legend\" aria-label=\"Legend\">"
    for style in TimelineMark.Style.allCases where styles.contains(style) {
      html += "<li data-kind=\"\(style.rawValue)\">"
      html += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"18\" height=\"14\" viewBox=\"0 0 18 14\" "
      html += "aria-hidden=\"true\">"
      if style == .refundedPart {
        html += "<rect x=\"1\" y=\"3\" width=\"16\" height=\"8\" fill=\"none\" stroke=\"\(style.color)\" "
        html += "stroke-dasharray=\"2 2\" stroke-width=\"2\"/>"
      } else {
        html += TimelineSVG.shape(style, x: 9, y: 7)
      }
      html += "</svg> \(style.name)</li>"
    }
    return html + "</ul>"
  }
}

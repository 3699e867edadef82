/// The console's one escaping function: every piece of text a page or an SVG drawing shows that
/// did not come from this module's own literals (a user id, a store identifier, a note, an error
/// message, a time zone name) goes through `HTML.escape` before it is put between tags or inside
/// an attribute value (always double-quoted).
enum HTML {
  /// `text` safe as element content and as a double- or single-quoted attribute value: `&`, `<`,
  /// `>`, `"` and `'` become character references; C0 controls other than tab, line feed and
  /// carriage return, DEL and C1 controls are dropped (XML 1.0 forbids most of them, so an SVG
  /// drawing stays well formed).
  static func escape(_ text: some StringProtocol) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&#39;"
      case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
      default:
        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { continue }
        escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }
}

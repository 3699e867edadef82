/// Prometheus' text exposition format (0.0.4), written by hand: serve sums its own counters at
/// each scrape (`ServeMetrics`), so it renders them itself rather than through a registry.
struct PrometheusText {
  private(set) var text = ""

  /// Starts a family: its `# HELP` and `# TYPE` lines.
  mutating func family(_ name: String, _ type: String, help: String) {
    text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
  }

  /// One sample; label values are escaped (`\`, `"`, newlines).
  mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: String) {
    text += name
    if !labels.isEmpty {
      text += "{" + labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
    }
    text += " \(value)\n"
  }

  mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: UInt64) {
    sample(name, labels, String(value))
  }

  mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int64) {
    sample(name, labels, String(value))
  }

  mutating func sample(_ name: String, _ labels: [(String, String)] = [], seconds: Double) {
    sample(name, labels, Self.number(seconds))
  }

  /// A float as Prometheus reads it (`2.5e-06`, `0.25`, `1.0`).
  static func number(_ value: Double) -> String {
    value.isFinite ? "\(value)" : value > 0 ? "+Inf" : "NaN"
  }

  static func escape(_ value: String) -> String {
    var escaped = ""
    for character in value {
      switch character {
      case "\\": escaped += "\\\\"
      case "\"": escaped += "\\\""
      case "\n": escaped += "\\n"
      default: escaped.append(character)
      }
    }
    return escaped
  }
}

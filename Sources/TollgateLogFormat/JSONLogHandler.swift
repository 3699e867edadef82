import Logging

#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// A swift-log handler that writes one JSON object a line: the keys of the text format
/// (`timestamp`, `level`, `label`, `source`, `message`) and every metadata key beside them.
///
/// Metadata is flattened: a nested dictionary's keys join their parent's with a dot
/// (`["webhook": ["endpoint": "a"]]` is `"webhook.endpoint": "a"`), an array is an array of
/// strings, every other value is its string. A metadata key that would replace one of the
/// line's own keys is written as `metadata.<key>`. Keys are sorted, as the text format sorts
/// its metadata, so a line is the same bytes for the same event.
///
/// Strings are escaped as JSON asks (quotes, backslashes, every control character, and U+2028
/// and U+2029, which end a line in JavaScript), so no value can end the line or forge another
/// one. A Swift `String` always holds valid Unicode, so the line is valid UTF-8; what a stranger
/// sent is escaped and cut to size before it is logged (`StrangerText.loggable`), which this
/// handler does not repeat.
public struct JSONLogHandler: LogHandler {
  public var logLevel: Logger.Level = .info
  public var metadata: Logger.Metadata = [:]
  public var metadataProvider: Logger.MetadataProvider?

  private let label: String
  private let write: @Sendable (String) -> Void
  private let timestamp: @Sendable () -> String

  /// - Parameters:
  ///   - write: takes each line, newline included.
  ///   - timestamp: the moment of a line as its `timestamp` value (RFC 3339 in UTC by default).
  public init(
    label: String, metadataProvider: Logger.MetadataProvider? = nil,
    timestamp: @escaping @Sendable () -> String = JSONLogHandler.utcTimestamp,
    write: @escaping @Sendable (String) -> Void
  ) {
    self.label = label
    self.metadataProvider = metadataProvider
    self.timestamp = timestamp
    self.write = write
  }

  /// Lines to the process's standard error, one write each.
  public static func standardError(label: String) -> JSONLogHandler {
    JSONLogHandler(label: label, metadataProvider: LoggingSystem.metadataProvider, write: StandardError.write)
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    write(line(for: event))
  }

  /// The line an event is written as, newline included.
  func line(for event: LogEvent) -> String {
    var merged = metadata
    if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
    if let explicit = event.metadata { merged.merge(explicit) { $1 } }
    if let error = event.error {
      merged["error.message"] = "\(error)"
      merged["error.type"] = "\(String(reflecting: type(of: error)))"
    }
    var fields: [(key: String, value: JSONLogValue)] = [
      ("timestamp", .string(timestamp())), ("level", .string(event.level.rawValue)), ("label", .string(label)),
      ("source", .string(event.source)), ("message", .string(event.message.description)),
    ]
    // One value per key: nested `a`→`b` and a literal `a.b` (or a renamed `level` and a literal
    // `metadata.level`) would otherwise both be written. The literal key wins: it is shallower.
    var chosen: [String: (value: JSONLogValue, depth: Int)] = [:]
    for (key, value) in merged {
      var flattened: [(key: String, value: JSONLogValue, depth: Int)] = []
      Self.flatten(value, key: key, depth: 0, into: &flattened)
      for (key, value, depth) in flattened {
        let renamed = Self.lineKeys.contains(key)
        let name = renamed ? "metadata." + key : key
        let rank = 2 * depth + (renamed ? 1 : 0)
        if let held = chosen[name], held.depth <= rank { continue }
        chosen[name] = (value, rank)
      }
    }
    fields += chosen.map { (key: $0.key, value: $0.value.value) }
    fields.sort { $0.key < $1.key }
    var line = "{"
    for (index, field) in fields.enumerated() {
      if index > 0 { line += "," }
      JSONLogValue.appendString(field.key, to: &line)
      line += ":"
      field.value.append(to: &line)
    }
    line += "}\n"
    return line
  }

  /// The keys every line has; a metadata key among them is written as `metadata.<key>`.
  static let lineKeys: Set<String> = ["timestamp", "level", "label", "source", "message"]

  static func flatten(
    _ value: Logger.Metadata.Value, key: String, depth: Int,
    into fields: inout [(key: String, value: JSONLogValue, depth: Int)]
  ) {
    switch value {
    case .string(let string): fields.append((key, .string(string), depth))
    case .stringConvertible(let convertible): fields.append((key, .string(convertible.description), depth))
    case .array(let values): fields.append((key, .strings(values.map(\.description)), depth))
    case .dictionary(let dictionary):
      for (inner, value) in dictionary { flatten(value, key: key + "." + inner, depth: depth + 1, into: &fields) }
    }
  }

  /// Now in UTC, RFC 3339 with milliseconds: `2026-11-27T11:16:08.123Z`.
  public static let utcTimestamp: @Sendable () -> String = {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func padded(_ value: Int32, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    let millis = Int32(now.tv_nsec / 1_000_000)
    return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2))T"
      + "\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2)).\(padded(millis, 3))Z"
  }
}

/// A value of a JSON log line.
enum JSONLogValue: Sendable, Equatable {
  case string(String)
  case strings([String])

  func append(to line: inout String) {
    switch self {
    case .string(let string): Self.appendString(string, to: &line)
    case .strings(let strings):
      line += "["
      for (index, string) in strings.enumerated() {
        if index > 0 { line += "," }
        Self.appendString(string, to: &line)
      }
      line += "]"
    }
  }

  /// `string` as a JSON string: quoted, with `"` and `\` escaped, every control character (C0,
  /// DEL, C1) as `\n`, `\r`, `\t` or `\u00XX`, and U+2028/U+2029 as `\u2028`/`\u2029`.
  static func appendString(_ string: String, to line: inout String) {
    line += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": line += "\\\""
      case "\\": line += "\\\\"
      case "\n": line += "\\n"
      case "\r": line += "\\r"
      case "\t": line += "\\t"
      case _
      where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
        || scalar.value == 0x2029:
        let hex = String(scalar.value, radix: 16)
        line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: line.unicodeScalars.append(scalar)
      }
    }
    line += "\""
  }
}

/// Whole lines to standard error (file descriptor 2), each in one `write(2)` when it can be (a
/// line up to `PIPE_BUF`, 4 KiB, is never interleaved with another process's or thread's), the
/// rest of a partial write after it. Nothing is buffered, so nothing is lost on a crash.
enum StandardError {
  static let write: @Sendable (String) -> Void = { line in
    var line = line
    line.withUTF8 { bytes in
      guard var next = bytes.baseAddress else { return }
      var left = bytes.count
      while left > 0 {
        #if canImport(Glibc)
          let written = Glibc.write(2, next, left)
        #else
          let written = Darwin.write(2, next, left)
        #endif
        if written < 0 {
          if errno == EINTR { continue }
          return
        }
        next += written
        left -= written
      }
    }
  }
}

import Logging

/// How a long-running command writes its log lines on standard error (`--log-format`).
public enum LogFormat: String, Sendable, Hashable, CaseIterable {
  /// swift-log's `StreamLogHandler`: `TIMESTAMP LEVEL LABEL: key=value … [SOURCE] MESSAGE`.
  case text
  /// One JSON object a line with the same keys (`JSONLogHandler`).
  case json

  /// A handler for `label` in this format, at `level`, writing to standard error.
  public func standardErrorHandler(label: String, level: Logger.Level) -> any LogHandler {
    switch self {
    case .text:
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    case .json:
      var handler = JSONLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
  }
}

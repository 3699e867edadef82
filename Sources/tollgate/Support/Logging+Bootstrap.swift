import ArgumentParser
import Logging
import TollgateLogFormat

/// `--log-level` and `--log-format` for every long-running command.
struct LoggingOptions: ParsableArguments {
  @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
  var logLevel: Logger.Level = .info

  @Option(help: "Log lines on stderr: text (key=value) or json (one object a line, the same keys).")
  var logFormat: LogFormat = .text

  /// Bootstraps swift-log once for this process (lines on stderr in `logFormat`).
  func makeLogger(label: String) -> Logger {
    let level = logLevel
    let format = logFormat
    LoggingSystem.bootstrap { label in format.standardErrorHandler(label: label, level: level) }
    return Logger(label: label)
  }
}

// swift-format-ignore: AvoidRetroactiveConformances
// The executable is the only place that parses a log level from the command line.
extension Logger.Level: @retroactive ExpressibleByArgument {}

// The executable is the only place that parses a log format from the command line.
extension LogFormat: ExpressibleByArgument {}

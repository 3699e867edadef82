import ArgumentParser
import Logging

/// `--log-level` for every long-running command.
struct LoggingOptions: ParsableArguments {
  @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
  var logLevel: Logger.Level = .info

  /// Bootstraps swift-log once for this process (structured key=value lines on stderr).
  func makeLogger(label: String) -> Logger {
    let level = logLevel
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    return Logger(label: label)
  }
}

// swift-format-ignore: AvoidRetroactiveConformances
// The executable is the only place that parses a log level from the command line.
extension Logger.Level: @retroactive ExpressibleByArgument {}

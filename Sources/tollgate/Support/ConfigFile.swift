import ArgumentParser
import Foundation
import StoreSimulator
import TollgateStorageFactory
import TollgateSupport
import TollgateWorker

/// The JSON config file shared by `serve`, `worker` and the admin commands. A file that cannot
/// be used throws `ConfigProblems` (every problem at once; exit 78).
enum ConfigFile {
  static func data(_ path: String) throws(ConfigProblems) -> Data {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ConfigProblems(path: path, problem: "the file cannot be read")
    }
    return data
  }

  /// The worker's configuration; with `storeSections`, their keys are checked too (`ConfigKeys`).
  static func worker(
    _ path: String, storeSections: [any (StoreSettings & Decodable).Type] = []
  ) throws(ConfigProblems) -> WorkerConfiguration {
    do {
      return try WorkerConfiguration.decode(try data(path), storeSections: storeSections)
    } catch let error as WorkerConfigurationError {
      throw ConfigProblems(path: path, problems: error.problems)
    } catch let error as ConfigProblems {
      throw error
    } catch {
      throw ConfigProblems(path: path, problem: "\(error)")
    }
  }

  /// A store's section of the worker's config file, if the file has one.
  static func section<Settings: StoreSettings & Decodable>(
    _: Settings.Type, of path: String
  ) throws(ConfigProblems) -> Settings? {
    do {
      return try Settings.section(in: try data(path))
    } catch let error as WorkerConfigurationError {
      throw ConfigProblems(path: path, problems: error.problems)
    } catch let error as ConfigProblems {
      throw error
    } catch {
      throw ConfigProblems(path: path, problem: "\(error)")
    }
  }

  /// The storage `--database`, else `worker.database`, else `service.database` from the file
  /// names (`StorageLocation`: an SQLite path; a PostgreSQL URL is refused, naming why). A bad
  /// value from the file is a `ConfigProblems` naming its key.
  static func storage(flag: String?, config: String?) throws -> StorageLocation {
    if let flag { return try StorageLocation(flag) }
    let (key, value) = try database(config: config)
    do {
      return try StorageLocation(value)
    } catch {
      throw ConfigProblems(path: config, problem: "\(key): \(error)")
    }
  }

  /// `--database`, else `worker.database`, else `service.database` from the file.
  static func database(flag: String?, config: String?) throws -> String {
    if let flag { return flag }
    return try database(config: config).value
  }

  /// `worker.database`, else `service.database` from the file, with its key.
  private static func database(config: String?) throws -> (key: String, value: String) {
    if let config {
      struct Sections: Decodable {
        struct Section: Decodable { var database: String? }
        var worker: Section?
        var service: Section?
      }
      let sections = try? JSONDecoder().decode(Sections.self, from: try data(config))
      if let path = sections?.worker?.database { return ("worker.database", path) }
      if let path = sections?.service?.database { return ("service.database", path) }
    }
    throw ValidationError("--database DB is required (or \"worker.database\" in --config)")
  }
}

/// A point in time on the command line: ms since the epoch, ISO 8601, or a duration from now
/// (`30d`, `12h`, `90m`, `45s`).
struct TimeArgument: ExpressibleByArgument, Sendable {
  var text: String

  init?(argument: String) {
    text = argument
  }

  func milliseconds(now: Int64) throws -> Int64 {
    if let ms = Int64(text) { return ms }
    if let duration = DurationArgument(argument: text) { return now + duration.milliseconds }
    // RFC 3339 with or without a fraction, exact to the millisecond (Foundation's strategy below
    // refuses fractions); Foundation then takes the other ISO 8601 forms.
    if let ms = ISO8601Text.ms(text) { return ms }
    if let date = try? Date(text, strategy: .iso8601) { return Int64(date.timeIntervalSince1970 * 1000) }
    throw ValidationError("\(text) is not a time: use ms since the epoch, ISO 8601, or a duration like 30d")
  }
}

/// A duration: `31d`, `12h`, `90m`, `45s`, `500ms`, an ISO 8601 period (`P1M`), or plain
/// milliseconds — read as the store simulator reads them.
struct DurationArgument: ExpressibleByArgument, Sendable {
  var milliseconds: Int64

  init?(argument: String) {
    guard let milliseconds = SimDuration.milliseconds(argument) else { return nil }
    self.milliseconds = milliseconds
  }
}

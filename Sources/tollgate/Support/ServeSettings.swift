import Foundation
import TollgateWorker

/// The `service` section of the config file (JSON). Flags given on the command line win.
///
/// ```json
/// { "service": { "listen": "127.0.0.1:7701", "database": "tollgate.sqlite",
///                "maxMessageBytes": 1048576, "maxPendingPerConnection": 64,
///                "feedPollMs": 2, "maxSubmitWaitMs": 10000, "eventLoopThreads": 2 } }
/// ```
struct ServeSettings: Decodable, Sendable {
  var listen: String?
  var database: String?
  var maxMessageBytes: Int?
  var maxPendingPerConnection: Int?
  var feedPollMs: Int?
  var maxSubmitWaitMs: UInt32?
  var eventLoopThreads: Int?

  /// How many event-loop threads `--threads` and `service.eventLoopThreads` may ask for.
  static let eventLoopThreadRange = 1...256

  private struct File: Decodable {
    var service: ServeSettings?
  }

  static func load(path: String) throws -> ServeSettings {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ConfigError(path: path, problem: "cannot be read (\(error.localizedDescription))")
    }
    do {
      return try JSONDecoder().decode(File.self, from: data).service ?? ServeSettings()
    } catch let error as DecodingError {
      throw ConfigError(path: path, problem: error.readablePath)
    }
  }

  init() {}

  func validate() throws {
    if let value = maxMessageBytes, !(1...(64 << 20)).contains(value) {
      throw ConfigError(path: nil, problem: "service.maxMessageBytes must be between 1 and 67108864")
    }
    if let value = maxPendingPerConnection, value < 1 {
      throw ConfigError(path: nil, problem: "service.maxPendingPerConnection must be at least 1")
    }
    if let value = eventLoopThreads, !Self.eventLoopThreadRange.contains(value) {
      let range = Self.eventLoopThreadRange
      throw ConfigError(
        path: nil, problem: "service.eventLoopThreads must be between \(range.lowerBound) and \(range.upperBound)")
    }
    if let value = feedPollMs, !(1...10_000).contains(value) {
      throw ConfigError(path: nil, problem: "service.feedPollMs must be between 1 and 10000")
    }
  }
}

struct ConfigError: Error, CustomStringConvertible {
  var path: String?
  var problem: String
  var description: String { path.map { "config file \($0): \(problem)" } ?? "config: \(problem)" }
}

import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reloads `service.callersFile` when it changes (checked every `interval`): keys can be added,
/// rotated and removed without a restart. A file that cannot be read or parsed leaves the callers
/// as they were and is logged; connections of a removed caller or an old key lose access at their
/// next request.
public struct CallersFileWatcher: Service {
  let path: String
  let registry: CallerRegistry
  let interval: Duration
  let logger: Logger

  public init(path: String, registry: CallerRegistry, interval: Duration = .seconds(2), logger: Logger) {
    self.path = path
    self.registry = registry
    self.interval = interval
    self.logger = logger
  }

  /// The callers in the file now.
  public static func load(path: String) throws(CallerList.Problem) -> [CallerKey] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw CallerList.Problem(description: "the callers file \(path) cannot be read")
    }
    return try CallerList.parse(data, source: path)
  }

  public func run() async throws {
    // Graceful shutdown cancels the watch: nothing is left half done by it.
    await cancelWhenGracefulShutdown { await watch() }
  }

  private func watch() async {
    var last = FileManager.default.contents(atPath: path)
    while !Task.isCancelled {
      try? await Task.sleep(for: interval)
      guard !Task.isCancelled else { return }
      let now = FileManager.default.contents(atPath: path)
      guard now != last else { continue }
      last = now
      do throws(CallerList.Problem) {
        let callers = try Self.load(path: path)
        registry.replace(with: callers)
        logger.notice("callers reloaded", metadata: ["callers.file": "\(path)", "callers.count": "\(callers.count)"])
      } catch {
        logger.error(
          "the callers file changed and cannot be used; the callers stay as they were",
          metadata: ["callers.file": "\(path)", "error": "\(error)"])
      }
    }
  }
}

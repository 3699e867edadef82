import ArgumentParser
import Foundation
import TollgateStorageFactory

/// `tollgate config …`: the config file, checked before anything runs.
struct ConfigCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "config", abstract: "Check a config file.", subcommands: [ConfigCheck.self])
}

/// `tollgate config check FILE`: every problem `serve` and `worker` would refuse the file for, at
/// once, with the exit code they use (78).
struct ConfigCheck: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Check a config file as serve and worker read it: print every problem, each naming its key.",
    discussion: """
      Checks the service section (serve: limits, addresses, doors, callers, TLS files) and, when \
      the file has any other section, what the worker reads (the catalog, worker, webhooks, \
      appStore, googlePlay, amazon), and the database each names. Secrets are read as the commands \
      read them (…Env from this environment, …File relative to $CREDENTIALS_DIRECTORY when set): \
      run it where the service runs. Exits 0 when the file is valid, 78 when it is not (as serve \
      and worker do for a bad config file), 2 on bad usage.
      """)

  @Argument(help: "The JSON config file.") var file: String

  func run() throws {
    let parts = try Self.check(path: file, environment: ProcessInfo.processInfo.environment)
    print("config file \(file): valid for \(parts.joined(separator: " and "))")
  }

  /// The commands the file was checked for (`serve`, `worker`); throws every problem found.
  static func check(path: String, environment: [String: String]) throws(ConfigProblems) -> [String] {
    let data = try ConfigFile.data(path)
    var problems: [String] = []
    do {
      let (settings, keyProblems) = try ServeSettings.load(path: path)
      problems += keyProblems + settings.allProblems()
    } catch {
      problems += error.problems
    }
    let sections = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    let forWorker = sections.keys.contains { $0 != "service" }
    if forWorker {
      do {
        problems += try WorkerConfigFile.load(path).problems(environment: environment)
      } catch {
        problems += error.problems
      }
    }
    problems += databaseProblems(sections)
    // The two commands judge the file's top-level keys alike: say each problem once.
    var seen: Set<String> = []
    try ConfigProblems.check(problems.filter { seen.insert($0).inserted }, path: path)
    return forWorker ? ["serve", "worker"] : ["serve"]
  }

  /// `worker.database` and `service.database`, when set, must name a storage Tollgate can open.
  private static func databaseProblems(_ sections: [String: Any]) -> [String] {
    ["worker", "service"].compactMap { section in
      guard let value = (sections[section] as? [String: Any])?["database"] as? String else { return nil }
      do {
        _ = try StorageLocation(value)
        return nil
      } catch {
        return "\(section).database: \(error)"
      }
    }
  }
}

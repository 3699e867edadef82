import ArgumentParser
import Foundation
import TollgateContract

@main
struct Tollgate: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tollgate",
    abstract: "Self-hosted entitlement service for App Store, Google Play and Amazon subscriptions.",
    version: TollgateVersion.current,
    subcommands: [
      Demo.self, Serve.self, Worker.self, Query.self, Grant.self, Revoke.self, Reverify.self, Explain.self,
      Lookup.self, Timeline.self, EraseUser.self,
      Inspect.self, Seed.self, Bench.self, StoreSim.self, Callers.self, Webhooks.self, MigrateStorage.self,
      HTTPRoutesCommand.self, ConfigCommand.self,
    ]
  )

  /// Like ArgumentParser's, except that bad usage exits 2 (as `grep` and friends do), which
  /// scripts can tell apart from "no" (1), and a bad config file 78 (`ConfigProblems`).
  static func main() async {
    do {
      var command = try parseAsRoot()
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch let problems as ConfigProblems {
      // A bad config file: every problem, then 78 (docs/configuration.md#exit-codes).
      FileHandle.standardError.write(Data((problems.description + "\n").utf8))
      exit(withError: ExitCode(ConfigProblems.exitCode))
    } catch {
      if exitCode(for: error) == .validationFailure {
        FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
        exit(withError: ExitCode(2))
      }
      exit(withError: error)
    }
  }
}

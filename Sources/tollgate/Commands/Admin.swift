import ArgumentParser
import Foundation
import Logging
import TollgateCore
import TollgateStorageFactory
import TollgateWorker

/// Options of the admin commands: where the database, the catalog, the worker's settings and the
/// deployment's clock are.
struct AdminOptions: ParsableArguments {
  @Option(
    help:
      "The database: an SQLite file path (or sqlite:PATH), or postgres://USER@HOST:PORT/DATABASE?sslmode=MODE with the password in TOLLGATE_DATABASE_PASSWORD(_FILE) (default: from --config)."
  )
  var database: String?

  @Option(
    help:
      "The worker's JSON config file: its catalog, its worker settings and its clock (default: the catalog the worker saved in the database, default worker settings, the machine's clock)."
  )
  var config: String?

  @Option(
    help:
      "Follow a store simulator's virtual clock at this URL, as the worker and the service do (demos and tests only; default: worker.followClockURL from --config)."
  )
  var followClock: String?

  /// Runs `body` with the admin commands on the database, with the catalog from --config, else
  /// the one the worker runs with (it saves it in the database when it starts); the worker's
  /// settings from --config; and the clock the deployment runs on (a simulator's, where the
  /// worker follows one). The storage is closed when `body` is done.
  func withAdmin<Result>(requireCatalog: Bool, _ body: (WorkerAdmin) async throws -> Result) async throws -> Result {
    let location = try ConfigFile.storage(flag: database, config: config)
    let configuration = try config.map { try ConfigFile.worker($0) }
    let clock = try await Self.clock(following: followClock ?? configuration?.worker.followClockURL)
    // Never creates a database: a mistyped path is an error that names it.
    let storage = try await location.workerStorage(
      nowMs: clock(), create: false, environment: ProcessInfo.processInfo.environment,
      logger: Logger(label: "tollgate.admin"))
    return try await StorageLifetime.using(storage) { storage in
      if let configuration {
        return try await body(
          WorkerAdmin(storage: storage, catalog: configuration.catalog, settings: configuration.worker, nowMs: clock))
      }
      if let saved = try await storage.savedCatalog() {
        return try await body(WorkerAdmin(storage: storage, catalog: saved, nowMs: clock))
      }
      if requireCatalog { throw AdminFailure.noCatalog(database: "\(location)") }
      return try await body(WorkerAdmin(storage: storage, catalog: .defaults, nowMs: clock))
    }
  }

  /// The machine's clock, or a simulator's virtual clock read once and run from there (the same
  /// now as every other follower of it: `FollowedClock`).
  static func clock(following url: String?) async throws -> @Sendable () -> Int64 {
    guard let url else { return SystemClock.nowMs }
    let follower = SimulatorClockFollower(url: url, logger: Logger(label: "tollgate.admin.clock"))
    do {
      try await follower.refresh()
    } catch {
      throw AdminFailure(description: "cannot read the store simulator's clock at \(url): \(error)")
    }
    return { follower.nowMs() }
  }
}

extension AdminOptions {
  /// The operating-system user running an admin command (`USER`, else `LOGNAME`), for the events
  /// it writes.
  static var operatorName: String? {
    let environment = ProcessInfo.processInfo.environment
    return environment["USER"] ?? environment["LOGNAME"]
  }
}

/// Why an admin command cannot run: one line, no usage (the command line itself was fine).
struct AdminFailure: Error, CustomStringConvertible {
  var description: String

  static func noCatalog(database: String) -> AdminFailure {
    AdminFailure(
      description: "no product catalog: no worker has run on \(database) yet; pass --config FILE to name the catalog")
  }
}

struct Grant: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Grant a promotional entitlement until a time.")

  @Argument var user: String
  @Argument var entitlement: String
  @Option(help: "Until when: ms since the epoch, ISO 8601, or a duration from now (30d).") var until: TimeArgument
  @Option(help: "Why (shown by explain).") var note: String?
  @Option(help: "Who grants it, for the granted event (default: the operating-system user).") var by: String?
  @OptionGroup var options: AdminOptions
  @OptionGroup var remote: AdminRemoteOptions

  func validate() throws { try remote.check(against: options) }

  func run() async throws {
    if remote.isRemote { return try await runRemote() }
    try await options.withAdmin(requireCatalog: true) { admin in
      let untilMs = try until.milliseconds(now: admin.nowMs())
      let id = try await admin.grant(
        userId: user, entitlement: entitlement, untilMs: untilMs, note: note, actor: by ?? AdminOptions.operatorName)
      print("granted \(entitlement) to \(user) until \(untilMs) (grant \(id))")
    }
  }
}

struct Revoke: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Revoke a user's promotional grants of an entitlement.")

  @Argument var user: String
  @Argument var entitlement: String
  @Option(help: "Why (sent with the grant_revoked event).") var note: String?
  @Option(help: "Who revokes it, for the grant_revoked event (default: the operating-system user).") var by: String?
  @OptionGroup var options: AdminOptions
  @OptionGroup var remote: AdminRemoteOptions

  func validate() throws { try remote.check(against: options) }

  func run() async throws {
    if remote.isRemote { return try await runRemote() }
    let count = try await options.withAdmin(requireCatalog: true) { admin in
      try await admin.revoke(userId: user, entitlement: entitlement, note: note, actor: by ?? AdminOptions.operatorName)
    }
    print("revoked \(count) grant(s) of \(entitlement) from \(user)")
    if count == 0 { throw ExitCode(1) }
  }
}

struct Reverify: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Make the worker re-verify a user's subscriptions now.")

  @Argument var user: String
  @OptionGroup var options: AdminOptions
  @OptionGroup var remote: AdminRemoteOptions

  func validate() throws { try remote.check(against: options) }

  func run() async throws {
    if remote.isRemote { return try await runRemote() }
    let count = try await options.withAdmin(requireCatalog: false) { admin in try await admin.reverify(userId: user) }
    print("\(count) subscription(s) of \(user) queued for re-verification")
    if count == 0 { throw ExitCode(1) }
  }
}

struct Explain: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Why a user has, or lacks, an entitlement: sources, evidence, rules, events.")

  @Argument var user: String
  @Argument var entitlement: String
  @Flag(help: "Print JSON.") var json = false
  @OptionGroup var options: AdminOptions
  @OptionGroup var remote: AdminRemoteOptions

  func validate() throws { try remote.check(against: options) }

  func run() async throws {
    if remote.isRemote { return try await runRemote() }
    let explanation = try await options.withAdmin(requireCatalog: false) { admin in
      try await admin.explain(userId: user, entitlement: entitlement)
    }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      print(String(decoding: try encoder.encode(explanation), as: UTF8.self))
    } else {
      print(explanation.text)
    }
  }
}

import ArgumentParser
import Foundation
import Logging
import TollgateCore
import TollgateStorageFactory
import TollgateWorker

/// `tollgate webhooks`: the events a webhook endpoint would not take (parked), and a test delivery.
struct Webhooks: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Webhook delivery: list parked events, deliver them again, send a signed test event.",
    subcommands: [WebhooksListParked.self, WebhooksRedeliver.self, WebhooksTest.self])
}

/// Where the database is, for the `webhooks` commands that read or write it.
struct WebhookDatabaseOptions: ParsableArguments {
  @Option(
    help:
      "The database: an SQLite file path (or sqlite:PATH), or postgres://USER@HOST:PORT/DATABASE?sslmode=MODE with the password in TOLLGATE_DATABASE_PASSWORD(_FILE) (default: worker.database from --config)."
  )
  var database: String?

  @Option(help: "JSON config file, for worker.database.")
  var config: String?

  @Option(help: "Only this endpoint's events (its url as configured).")
  var endpoint: String?

  /// Runs `body` with the worker's storage on the database, closed when `body` is done.
  func withStorage<Result>(_ body: (any WorkerStorage) async throws -> Result) async throws -> Result {
    // Never creates a database: a mistyped path is an error that names it.
    let storage = try await ConfigFile.storage(flag: database, config: config).workerStorage(
      nowMs: SystemClock.nowMs(), create: false, environment: ProcessInfo.processInfo.environment,
      logger: Logger(label: "tollgate.webhooks"))
    return try await StorageLifetime.using(storage, body)
  }
}

struct WebhooksListParked: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list-parked",
    abstract: "List the events webhook endpoints did not take within their retry limit (parked).")

  @OptionGroup var options: WebhookDatabaseOptions
  @Flag(help: "Print JSON: an array with one object per parked event.") var json = false

  func run() async throws {
    let rows = try await options.withStorage { storage in
      var rows: [[String: Any]] = []
      for entry in try await storage.parkedWebhookEvents(endpoint: options.endpoint) {
        let stored = try await storage.event(id: entry.eventId)
        var row: [String: Any] = [
          "endpoint": entry.endpoint, "sequence": entry.eventId, "status": entry.queued ? "queued" : "parked",
          "attempts": entry.attempts, "parkedAtMs": entry.parkedAtMs,
        ]
        row["eventId"] = stored?.eventId
        row["kind"] = stored?.event.kind
        row["userId"] = stored?.event.userId
        row["atMs"] = stored?.event.atMs
        row["lastError"] = entry.lastError
        rows.append(row)
      }
      return rows
    }
    if json {
      let data = try JSONSerialization.data(withJSONObject: rows, options: [.sortedKeys])
      print(String(decoding: data, as: UTF8.self))
      return
    }
    if rows.isEmpty { print("no parked webhook events") }
    for row in rows {
      let fields = ["sequence", "eventId", "kind", "userId", "atMs", "status", "attempts", "parkedAtMs", "lastError"]
      let text = fields.compactMap { key in row[key].map { "\(key)=\($0)" } }.joined(separator: " ")
      print("\(row["endpoint"] ?? "") \(text)")
    }
  }
}

struct WebhooksRedeliver: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "redeliver",
    abstract: "Queue parked webhook events for delivery again; the running worker sends them.")

  @Argument(help: "Parked events: their event id (the UUID receivers see) or sequence number.")
  var events: [String] = []
  @Flag(help: "Every parked event (of --endpoint, if given).") var all = false
  @OptionGroup var options: WebhookDatabaseOptions

  func validate() throws {
    if all == !events.isEmpty { throw ValidationError("name parked events, or pass --all (not both)") }
  }

  func run() async throws {
    let count = try await options.withStorage { storage in
      var sequences: [Int64]?
      if !all {
        // Event ids (UUIDs) and sequence numbers of the parked events in scope.
        var known: [String: Int64] = [:]
        for entry in try await storage.parkedWebhookEvents(endpoint: options.endpoint) {
          known[String(entry.eventId)] = entry.eventId
          if let stored = try await storage.event(id: entry.eventId) {
            known[stored.eventId.lowercased()] = entry.eventId
          }
        }
        let unknown = events.filter { known[$0.lowercased()] == nil }
        guard unknown.isEmpty else {
          throw AdminFailure(
            description: "not parked: \(unknown.joined(separator: ", ")) (see tollgate webhooks list-parked)")
        }
        sequences = events.compactMap { known[$0.lowercased()] }
      }
      return try await storage.requestWebhookRedelivery(eventIds: sequences, endpoint: options.endpoint)
    }
    print("\(count) parked webhook event(s) queued for redelivery; the running worker sends them")
    if count == 0 { throw ExitCode(1) }
  }
}

struct WebhooksTest: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "test",
    abstract: "Send a signed test event (kind test) to a configured endpoint and print what it answered.")

  @Option(help: "The endpoint's url, as in the config file's webhooks section.") var endpoint: String
  @Option(help: "JSON config file (its webhooks section names the endpoint and its secret).") var config: String

  func run() async throws {
    let configuration = try ConfigFile.worker(config)
    guard let webhook = configuration.webhooks.first(where: { $0.url == endpoint }) else {
      let configured = configuration.webhooks.map(\.url).joined(separator: ", ")
      throw ValidationError(
        "\(endpoint) is not in the webhooks section of \(config) (configured: \(configured.isEmpty ? "none" : configured))"
      )
    }
    let secret: String
    do {
      secret = try webhook.secret.value(environment: ProcessInfo.processInfo.environment)
    } catch {
      throw ValidationError("\(error): the event cannot be signed")
    }
    let result: WebhookTestEvent.Result
    do {
      result = try await WebhookTestEvent.send(to: webhook, secret: Array(secret.utf8), nowMs: SystemClock.nowMs())
    } catch {
      print("\(webhook.displayName): no answer (\(error))")
      throw ExitCode(1)
    }
    print(
      "\(webhook.displayName): HTTP \(result.status) \(result.accepted ? "accepted" : "refused") "
        + "(test event \(result.eventId))")
    if !result.accepted { throw ExitCode(1) }
  }
}

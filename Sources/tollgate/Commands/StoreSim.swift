import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import StoreSimulator

/// `tollgate storesim`: the simulated stores (the App Store, Google Play) on a virtual clock, and small
/// commands that drive a running simulator over its control API.
struct StoreSim: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "storesim",
    abstract: "Run the store simulator, or drive a running one (see docs/storesim.md).",
    subcommands: [
      ServeSim.self, Advance.self, Clock.self, Purchase.self, FailRenewal.self, RecoverBilling.self, AutoRenew.self,
      Refund.self, ChangeProduct.self, FamilyShare.self, Restore.self, Fault.self, Google.self, Amazon.self,
    ],
    defaultSubcommand: ServeSim.self
  )

  /// `--sim HOST:PORT` of a running simulator.
  struct Target: ParsableArguments {
    @Option(name: .customLong("sim"), help: "The simulator's HOST:PORT.")
    var sim: HostPort = HostPort(host: "127.0.0.1", port: 7702)

    /// Sends one control request, prints the JSON answer, fails on a non-2xx.
    func call(_ method: String, _ path: String, json: [String: any Sendable]? = nil) async throws {
      let client = StoreSimulatorControlClient(baseURL: "http://\(sim)", httpClient: .shared)
      let answer = try await client.send(method, path, json: json)
      FileHandle.standardOutput.write(Data((answer.body + "\n").utf8))
      guard answer.isSuccess else { throw ExitCode(1) }
    }
  }

  struct ServeSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "serve", abstract: "Run the simulator until SIGTERM/SIGINT.")

    @Option(help: "Address to listen on, HOST:PORT.")
    var listen: HostPort?

    @Option(help: "Directory for apple-root.cer (DER, the root to pin) and the signing chain.")
    var data: String?

    @Option(help: "JSON config file (apps, products, grace period, retry window, start time).")
    var config: String?

    @Option(name: .customLong("notify-apple"), help: "URL every configured app's V2 notifications are posted to.")
    var notifyApple: String?

    @Option(
      name: .customLong("notify-google"),
      help: "URL every configured Google app's Pub/Sub pushes go to (also their default push audience).")
    var notifyGoogle: String?

    @Option(
      name: .customLong("notify-amazon"),
      help: "URL every configured Amazon app's Real-Time Notifications go to, as Amazon SNS deliveries.")
    var notifyAmazon: String?

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
      var settings = try config.map { path throws in try StoreSimulator.Config.load(path: path) } ?? .defaults
      if let listen {
        settings.host = listen.host
        settings.port = listen.port
      } else if config == nil {
        settings.port = 7702
      }
      if let data { settings.dataDirectory = data }
      if let notifyApple {
        for index in settings.apple.apps.indices { settings.apple.apps[index].notificationURL = notifyApple }
      }
      if let notifyGoogle {
        for index in settings.google.apps.indices { settings.google.apps[index].notificationURL = notifyGoogle }
      }
      if let notifyAmazon {
        for index in settings.amazon.apps.indices { settings.amazon.apps[index].notificationURL = notifyAmazon }
      }
      let logger = logging.makeLogger(label: "tollgate.storesim")
      let simulator = try await StoreSimulator.start(config: settings, logger: logger)
      // Written unbuffered: scripts and tests wait for this line to learn the port.
      FileHandle.standardOutput.write(
        Data(
          ("tollgate storesim: listening on \(HostPort(host: settings.host, port: simulator.port)), virtual now "
            + "\(simulator.clockNowMs)\(settings.dataDirectory.map { ", root \($0)/apple-root.cer" } ?? "")"
            + "\(simulator.googleServiceAccountKeyPath.map { ", Google key \($0)" } ?? "")\n").utf8))
      let group = ServiceGroup(
        configuration: .init(
          services: [.init(service: SimulatorService(simulator: simulator))],
          gracefulShutdownSignals: [.sigterm, .sigint],
          logger: logger))
      try await group.run()
    }
  }

  /// Keeps the simulator up until graceful shutdown, then stops it.
  struct SimulatorService: Service {
    let simulator: StoreSimulator

    func run() async throws {
      try? await gracefulShutdown()
      await simulator.stop()
    }
  }

  struct Advance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Move the virtual clock forward (31d, 12h, 90m, 30s, P1M or ms) and print what happened.")

    @Argument(help: "How far: 31d, 12h, 90m, 30s, P1M, or milliseconds.")
    var duration: String

    @OptionGroup var target: Target

    func validate() throws {
      guard SimDuration.milliseconds(duration) != nil else { throw ValidationError("not a duration: \(duration)") }
    }

    func run() async throws { try await target.call("POST", "/sim/clock/advance", json: ["by": duration]) }
  }

  struct Clock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the virtual clock ({\"nowMs\": …}).")
    @OptionGroup var target: Target
    func run() async throws { try await target.call("GET", "/sim/clock") }
  }

  struct Purchase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Buy an App Store subscription.")

    @Argument(help: "Product id.")
    var productId: String
    @Option(help: "trial or intro.")
    var offer: String?
    @Option(help: "Sandbox (default) or Production.")
    var environment: String?
    @Option(help: "Bundle id (default: the first configured app).")
    var bundleId: String?
    @Option(help: "appAccountToken (a UUID).")
    var appAccountToken: String?
    @Option(help: "Resubscribe this expired subscription.")
    var originalTransactionId: String?
    @OptionGroup var target: Target

    func run() async throws {
      var body: [String: any Sendable] = ["productId": productId]
      if let offer { body["offer"] = offer }
      if let environment { body["environment"] = environment }
      if let bundleId { body["bundleId"] = bundleId }
      if let appAccountToken { body["appAccountToken"] = appAccountToken }
      if let originalTransactionId { body["originalTransactionId"] = originalTransactionId }
      try await target.call("POST", "/sim/apple/purchases", json: body)
    }
  }

  struct FailRenewal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Make renewals (and billing retries) fail until recover-billing.")
    @Argument(help: "Original transaction id.") var id: String
    @OptionGroup var target: Target
    func run() async throws { try await target.call("POST", "/sim/apple/subscriptions/\(id)/fail-renewals") }
  }

  struct RecoverBilling: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Make the next billing retry succeed.")
    @Argument(help: "Original transaction id.") var id: String
    @Flag(help: "Retry now instead of at the next scheduled retry.") var immediately = false
    @OptionGroup var target: Target
    func run() async throws {
      try await target.call(
        "POST", "/sim/apple/subscriptions/\(id)/recover-billing", json: ["immediately": immediately])
    }
  }

  struct AutoRenew: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "auto-renew", abstract: "Turn auto-renew on or off.")
    @Argument(help: "Original transaction id.") var id: String
    @Argument(help: "on or off.") var state: String
    @OptionGroup var target: Target
    func validate() throws {
      guard state == "on" || state == "off" else { throw ValidationError("auto-renew takes on or off") }
    }
    func run() async throws {
      try await target.call("POST", "/sim/apple/subscriptions/\(id)/auto-renew", json: ["enabled": state == "on"])
    }
  }

  struct Refund: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Refund a transaction (the latest by default).")
    @Argument(help: "Original transaction id.") var id: String
    @Option(help: "The transaction to refund.") var transactionId: String?
    @Option(help: "revocationReason: 0 other, 1 an issue with the app.") var reason = 0
    @OptionGroup var target: Target
    func run() async throws {
      var body: [String: any Sendable] = ["reason": reason]
      if let transactionId { body["transactionId"] = transactionId }
      try await target.call("POST", "/sim/apple/subscriptions/\(id)/refund", json: body)
    }
  }

  struct ChangeProduct: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "change-product", abstract: "Upgrade (immediate), downgrade or crossgrade (next renewal).")
    @Argument(help: "Original transaction id.") var id: String
    @Argument(help: "The new product id, in the same group.") var productId: String
    @OptionGroup var target: Target
    func run() async throws {
      try await target.call("POST", "/sim/apple/subscriptions/\(id)/change-product", json: ["productId": productId])
    }
  }

  struct FamilyShare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "family-share", abstract: "Share the subscription with a family member.")
    @Argument(help: "Original transaction id.") var id: String
    @Option(help: "The member's appAccountToken.") var appAccountToken: String?
    @OptionGroup var target: Target
    func run() async throws {
      var body: [String: any Sendable] = [:]
      if let appAccountToken { body["appAccountToken"] = appAccountToken }
      try await target.call("POST", "/sim/apple/subscriptions/\(id)/family-share", json: body)
    }
  }

  struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "What the buyer's device holds after AppStore.sync(): the latest transaction signed now, receipts made now.")
    @Argument(help: "Original transaction id (or any transaction id of it).") var id: String
    @OptionGroup var target: Target
    func run() async throws {
      try await target.call("POST", "/sim/apple/subscriptions/\(id)/restore")
    }
  }

  struct Fault: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Make the store misbehave, or clear every fault with --clear.")
    @Option(
      help: """
        apple.api, apple.verifyReceipt, apple.notifications, google.api, google.token, google.notifications, \
        amazon.rvs or amazon.notifications.
        """)
    var target: String?
    @Option(
      help: """
        error500, rateLimit, slow, stall, reset, html200, empty200, truncatedJSON (API, verifyReceipt); \
        badSignature (apple.api), unauthorized, notFound, stale (API; unauthorized also google.token); \
        drop, duplicate, reorder (notifications).
        """)
    var mode: String?
    @Option(help: "How many requests; 0 = until cleared.") var count = 1
    @Option(help: "Retry-After seconds (rateLimit).") var retryAfter: Int?
    @Option(help: "Delay in ms (slow), or the real-time cap of a stall (default 30000).") var delayMs: Int?
    @Option(help: "amazon.rvs: the status of error500 (500, 503, 504) or unauthorized (496, 497).") var status: Int?
    @Option(help: "Fault only this share of the target's requests, in (0, 1] (0.05: every 20th).") var fraction: Double?
    @Flag(help: "Remove every fault.") var clear = false
    @OptionGroup var sim: Target

    func run() async throws {
      if clear { return try await sim.call("DELETE", "/sim/faults") }
      guard let target, let mode else { throw ValidationError("--target and --mode are required (or --clear)") }
      var body: [String: any Sendable] = ["target": target, "mode": mode]
      if count > 0 { body["count"] = count }
      if let retryAfter { body["retryAfterSeconds"] = retryAfter }
      if let delayMs { body["delayMs"] = delayMs }
      if let status { body["status"] = status }
      if let fraction { body["fraction"] = fraction }
      try await sim.call("POST", "/sim/faults", json: body)
    }
  }
}

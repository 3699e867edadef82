import ArgumentParser
import AsyncHTTPClient
import Foundation
import StoreSimulator
import TollgateClient
import TollgateContract

extension Bench {
  struct Workers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "How many purchase verifications per second the running workers apply (against the store simulator).",
      discussion: """
        Buys --purchases monthly subscriptions at a running `tollgate storesim` (App Store, Google Play, \
        Amazon in turn, one user each), then submits each through the running service (SubmitPurchase \
        with wait_ms 0, --in-flight at once) while it asks IsSubscriber about the users not yet entitled, \
        --poll-batch of them at once (oldest first, a round every 10 ms while some are still waiting), \
        until the service answers each one entitled. Timed from the first \
        submission to the last user answered entitled: the buying is not counted. Prints verifications \
        per second and the time to the last one. The store simulator must not post notifications to \
        the workers (then a purchase would be verified before it is submitted). Exits 1 when a \
        submission was not acknowledged or a user was not entitled within --timeout-ms, 2 on bad usage.
        """)

    @Option(help: "The store simulator's control API, HOST:PORT.")
    var sim = HostPort(host: "127.0.0.1", port: 7702)

    @Option(help: "The service, HOST:PORT (default 127.0.0.1:7701). Repeat it for replicas.")
    var server: [HostPort] = []

    @Option(help: "Subscriptions to buy and submit.")
    var purchases = 1_000

    @Option(help: "Submissions in flight at once.")
    var inFlight = 32

    @Option(help: "Users asked about at once (IsSubscriber calls in flight) in each polling round.")
    var pollBatch = 64

    @Option(help: "Give up this many milliseconds after the first submission.")
    var timeoutMs = 300_000

    @Option(help: "User id prefix (default: one of this run's own, so runs never share users).")
    var userPrefix: String?

    @Option(help: "The entitlement the product grants.")
    var entitlement = "premium"

    @Option(help: "The subscription bought at every store (its term SKU at Amazon).")
    var product = "com.example.premium.monthly"

    @Option(help: "The App Store app's bundle id (the simulator's).")
    var bundleId = "com.example.app"

    @Option(help: "The Google Play app's package name.")
    var packageName = "com.example.android"

    @Option(help: "The Amazon app's package name (the submission's app_id).")
    var amazonApp = "com.example.amazon"

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
      guard purchases >= 1 else { throw ValidationError("--purchases must be at least 1") }
      guard inFlight >= 1, pollBatch >= 1 else {
        throw ValidationError("--in-flight and --poll-batch must be at least 1")
      }
      guard timeoutMs >= 1 else { throw ValidationError("--timeout-ms must be at least 1") }
      if let userPrefix, userPrefix.isEmpty { throw ValidationError("--user-prefix must not be empty") }
    }

    var servers: [HostPort] { server.isEmpty ? [HostPort(host: "127.0.0.1", port: 7701)] : server }

    func run() async throws {
      let prefix = userPrefix ?? "workers-\(getpid())-\(Int64(Date().timeIntervalSince1970 * 1_000))-"
      let buyer = WorkersPurchaser(
        control: StoreSimulatorControlClient(baseURL: "http://\(sim)", httpClient: .shared), product: product,
        bundleId: bundleId, packageName: packageName, amazonApp: amazonApp)
      let requests: [Tollgate_V1_SubmitPurchaseRequest]
      do {
        try await buyer.checkReachable()
        requests = try await buyer.buy(purchases, userPrefix: prefix, concurrency: 16)
      } catch {
        FileHandle.standardError.write(Data("tollgate bench workers: buying at \(sim) failed: \(error)\n".utf8))
        throw ExitCode(2)
      }
      let client = try TollgateClient(endpoints: servers.map { .tcp(host: $0.host, port: $0.port) })
      let measured: WorkersMeasurement
      do {
        measured = try await WorkersMeasurement.measure(
          requests, client: client, entitlement: entitlement, inFlight: inFlight, pollBatch: pollBatch,
          timeout: .milliseconds(timeoutMs))
      } catch {
        await client.close()
        FileHandle.standardError.write(Data("tollgate bench workers: \(error)\n".utf8))
        throw ExitCode(2)
      }
      await client.close()
      report(measured)
      if measured.notEntitled > 0 || measured.notAcknowledged > 0 { throw ExitCode(1) }
    }

    private func report(_ m: WorkersMeasurement) {
      if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        if let data = try? encoder.encode(m) { print(String(decoding: data, as: UTF8.self)) }
        return
      }
      var line =
        "tollgate bench workers → \(servers.map(\.description).joined(separator: ", ")): \(m.purchases) purchases "
        + "(App Store, Google Play, Amazon in turn): \(Int(m.verificationsPerSecond.rounded())) verifications/s; "
        + "last entitled after \(m.lastEntitledMs) ms (submitting took \(m.submittedMs) ms; "
        + "half entitled after \(m.halfEntitledMs) ms)"
      if m.resubmitted > 0 {
        line += "; \(m.resubmitted) submissions sent again after a refusal (serve's submitsPerSecondPerCaller?)"
      }
      if m.notAcknowledged > 0 { line += "; \(m.notAcknowledged) submissions not acknowledged" }
      if m.notEntitled > 0 { line += "; \(m.notEntitled) users not entitled within \(timeoutMs) ms" }
      print(line)
    }
  }
}

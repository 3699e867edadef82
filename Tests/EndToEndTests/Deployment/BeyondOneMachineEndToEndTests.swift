import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateTesting
import TollgateWorker

/// Issue 27, "What must be shown": one PostgreSQL server, two `serve` replicas, two workers and
/// the three stores simulated over HTTP, all real processes. Purchases and their notifications
/// land exactly once (counted at the simulator and in the events); both replicas answer the same;
/// a worker killed with SIGKILL mid-run loses nothing (its items finish on the other); PostgreSQL
/// stopped mid-run: the replicas keep answering from memory, say DEGRADED, and catch up when it is
/// back; a replica killed: a client given both keeps answering. Nothing acknowledged is lost.
@Suite("Beyond one machine: PostgreSQL, two replicas, two workers", .serialized)
struct BeyondOneMachineEndToEndTests {
  static let purchases = 500

  @Test("500 purchases through two replicas and two workers, a worker killed, PostgreSQL down, a replica killed")
  func deployment() async throws {
    let deployment = try await PostgresDeployment.make(prefix: "tollgate-deployment")
    var workers: [LoggedWorker] = []
    var replicas: [ServeReplica] = []
    do {
      workers.append(try await deployment.startWorker("a", receivesNotifications: true))
      workers.append(try await deployment.startWorker("b"))
      for _ in 0..<2 { replicas.append(try await ServeReplica.start(database: deployment.database)) }
      try await Self.exercise(deployment, workers: workers, replicas: replicas)
    } catch {
      for worker in workers { await worker.stop() }
      for replica in replicas { await replica.stop() }
      await deployment.remove()
      throw error
    }
    _ = await workers[0].stop()
    for replica in replicas where replica.process.process.isRunning { await replica.stop() }
    await deployment.remove()
  }

  static func exercise(_ deployment: PostgresDeployment, workers: [LoggedWorker], replicas: [ServeReplica])
    async throws
  {
    let endpoints = replicas.map { TollgateClient.Endpoint.tcp(host: "127.0.0.1", port: $0.port) }
    let both = try TollgateClient(endpoints: endpoints)
    let each = replicas.map { TollgateClient(host: "127.0.0.1", port: $0.port) }
    do {
      try await phases(deployment, workers: workers, replicas: replicas, both: both, each: each)
    } catch {
      for client in [both] + each { await client.close() }
      throw error
    }
    for client in [both] + each { await client.close() }
  }

  static func phases(
    _ deployment: PostgresDeployment, workers: [LoggedWorker], replicas: [ServeReplica], both: TollgateClient,
    each: [TollgateClient]
  ) async throws {
    // Phase 1: half the purchases, both workers up, no faults.
    var bought: [DeployedPurchase] = []
    for index in 0..<purchases / 2 { bought.append(try await deployment.buy(index)) }
    try await deployment.submit(bought, through: both)
    for (position, client) in each.enumerated() {
      let missing = await deployment.awaitEntitled(bought, by: client)
      #expect(missing.isEmpty, "replica \(position) answers them all entitled; not: \(missing.prefix(10))")
    }
    try await settle(deployment)
    let reads = storeReads(bought, deployment.sim)
    let unread = reads.filter { $0.value == 0 }.map(\.key)
    #expect(unread.isEmpty, "every chain was read from its store: \(unread.prefix(10))")
    // Each purchase is two inbox items (its submission, its notification), each worth one store
    // read at most, whichever worker takes it and however the two race.
    let twice = reads.filter { $0.value > 2 }
    #expect(
      twice.isEmpty, "a chain is read once per inbox item (its submission, its notification): \(twice.prefix(10))")
    #expect(workers.allSatisfy { $0.count("subscription verified") > 0 }, "both workers verify")

    // Phase 2: the other half, with a worker killed, PostgreSQL down for a while, then up again.
    var more: [DeployedPurchase] = []
    for index in purchases / 2..<purchases { more.append(try await deployment.buy(index)) }
    let third = more.count / 3
    try await deployment.submit(Array(more[0..<third]), through: both)
    kill(workers[1].process.processIdentifier, SIGKILL)
    try await deployment.submit(Array(more[third..<(2 * third)]), through: both)

    try await deployment.server.down()
    // From memory: everyone verified before keeps access on both replicas, and Health says how stale.
    for (position, client) in each.enumerated() {
      let entitled = await deployment.entitled(bought, by: client)
      #expect(entitled.count == bought.count, "replica \(position) answers from memory while the database is down")
    }
    let degraded = await eventually(timeout: .seconds(20)) {
      var statuses: [Tollgate_V1_ServingStatus] = []
      for client in each { statuses.append((try? await client.health())?.status ?? .unspecified) }
      return statuses.allSatisfy { $0 == .degraded }
    }
    #expect(degraded != nil, "both replicas say DEGRADED while the database is down")
    let health = try await each[0].health()
    #expect(health.changeFeedLagMs >= 5_000, "and how stale: \(health.changeFeedLagMs) ms")
    try await deployment.server.up()

    try await deployment.submit(Array(more[(2 * third)...]), through: both)
    let everyone = bought + more
    for (position, client) in each.enumerated() {
      let missing = await deployment.awaitEntitled(everyone, by: client, timeout: .seconds(120))
      #expect(missing.isEmpty, "replica \(position) caught up: not entitled \(missing.prefix(10))")
      let status = try await client.health().status
      #expect(status == .serving, "replica \(position) serves again")
    }
    try await settle(deployment)

    // Exactly once: one `purchased` event per purchase, whichever worker, however often retried.
    let storage = try await deployment.workerStorage()
    var wrong: [String] = []
    for purchase in everyone {
      let kinds = try await storage.events(userId: purchase.user).map(\.kind)
      if kinds != ["purchased"] { wrong.append("\(purchase.user): \(kinds)") }
    }
    await storage.close()
    #expect(wrong.isEmpty, "one purchase event each: \(wrong.prefix(10))")

    // A replica killed: the client given both keeps answering every user.
    await replicas[0].kill()
    let entitled = await deployment.entitled(everyone, by: both)
    #expect(entitled.count == everyone.count, "the other replica answers: \(everyone.count - entitled.count) missing")
  }

  /// Waits until the inbox is empty and every notification the stores sent was delivered.
  static func settle(_ deployment: PostgresDeployment) async throws {
    let storage = try await deployment.workerStorage()
    var waiting = ""
    let settled = try await eventually(timeout: .seconds(90)) {
      let counts = try await storage.inboxCounts()
      let busy = counts["pending", default: 0] + counts["processing", default: 0]
      let undelivered = deployment.sim.notifications.count { $0.state == "pending" }
      waiting = "inbox \(counts), notifications pending \(undelivered)"
      return busy == 0 && undelivered == 0
    }
    await storage.close()
    try #require(settled != nil, "not settled: \(waiting)")
  }

  /// How many times each chain was read from its store: Apple's Get All Subscription Statuses,
  /// Google's `subscriptionsv2.get`, Amazon's RVS `verifyReceiptId`.
  static func storeReads(_ purchases: [DeployedPurchase], _ sim: StoreSimulator) -> [String: Int] {
    let requests = sim.storeRequests
    var reads: [String: Int] = [:]
    for purchase in purchases {
      let chain = purchase.chain
      reads[purchase.user] = requests.count { request in
        switch chain.store {
        case .amazon:
          request.target == "amazon.rvs"
            && request.request.split(separator: "/").last.map { String($0).removingPercentEncoding } == chain.purchaseId
        default: chain.isRead(request)
        }
      }
    }
    return reads
  }
}

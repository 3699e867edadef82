import Foundation
import StoreSimulator
import Testing
import TollgateClient
import TollgateCore
import TollgateTesting

/// Issue 24 item 14: processes that follow the simulator's clock read the same virtual now,
/// whenever they started. `tollgate serve` starts before an `advance` and `tollgate worker` after
/// it; the service stamps a submission with its now, and the worker takes it once its own now
/// reaches that: a worker running behind would leave it PENDING.
@Suite("Followers of the simulator's clock", .serialized)
struct FollowedClockEndToEndTests {
  @Test("serve started before an advance, the worker seconds after it: a submission is VERIFIED at once")
  func followersStartedApartAgree() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-clock", receivingNotifications: true)
    let sim = workers.sim
    let serve = try ChildProcess([
      "serve", "--listen", "127.0.0.1:0", "--database", workers.database, "--create", "--follow-clock",
      sim.baseURL, "--log-level", "warning",
    ])
    defer { serve.terminate() }
    let line = try #require(await serve.waitForLine(containing: "listening on"), "serve did not start")
    let address = try #require(
      line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") }.map { $0.trimmingCharacters(in: [","]) })
    let port = try #require(address.split(separator: ":").last.flatMap { Int($0) })

    // The store's clock jumps while the service follows it; the worker starts 3 s later.
    _ = try await sim.advance(byMs: 31 * 86_400_000)
    try await Task.sleep(for: .seconds(3))
    let worker = try await workers.start().process
    defer { worker.terminate() }

    let client = TollgateClient(host: "127.0.0.1", port: port)
    let purchase = try await sim.purchase(
      .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
    var submit = Tollgate_V1_SubmitPurchaseRequest()
    submit.userID = "alice"
    submit.store = .appStore
    submit.receipt = purchase.signedTransaction
    // A worker whose clock ran behind would hold it PENDING until its clock caught up; one that
    // agrees verifies it as soon as it can (up to 8 s on two cores under the full suite).
    submit.waitMs = 8_000
    let answer = try await client.submitPurchase(submit, timeout: .seconds(12))
    #expect(answer.status == .verified, "\(answer.status): the worker's clock runs behind the service's")
    #expect(try await client.isSubscriber(userId: "alice", entitlement: "premium").active)
    await client.close()
    await workers.remove()
  }
}

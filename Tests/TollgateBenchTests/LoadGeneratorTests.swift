import Foundation
import Logging
import Synchronization
import Testing
import TollgateCallers
import TollgateContract
import TollgateServer
import TollgateWire

@testable import TollgateBench

/// Runs the (blocking) benchmark on its own thread, off the test's cooperative pool.
func runBench(_ configuration: BenchConfiguration, callerKey: String? = nil) async throws -> BenchResult {
  let result = await withCheckedContinuation {
    (continuation: CheckedContinuation<Result<BenchResult, BenchError>, Never>) in
    let thread = Thread {
      continuation.resume(
        returning: Result { () throws(BenchError) -> BenchResult in
          try BenchRunner.run(configuration, callerKey: callerKey)
        })
    }
    thread.start()
  }
  return try result.get()
}

/// IsSubscriber says yes for even user numbers; counts what it was asked.
final class CountingHandler: EntitlementsHandler {
  let asked = Atomic<Int>(0)
  let yes = Atomic<Int>(0)
  let getSubscription = Atomic<Int>(0)

  func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse {
    asked.add(1, ordering: .relaxed)
    var response = Tollgate_V1_IsSubscriberResponse()
    let number = Int(request.userID.dropFirst("user-".count)) ?? 1
    response.active = request.entitlement == "premium" && number % 2 == 0
    if response.active { yes.add(1, ordering: .relaxed) }
    response.productID = "premium_monthly"
    return response
  }

  func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse {
    getSubscription.add(1, ordering: .relaxed)
    var response = Tollgate_V1_GetSubscriptionResponse()
    response.userID = request.userID
    return response
  }

  func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity) async
    -> Tollgate_V1_SubmitPurchaseResponse
  { .init() }
  func getSubmission(_ request: Tollgate_V1_GetSubmissionRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetSubmissionResponse
  { .init() }
  func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse { .init() }
}

@Suite("The load generator over real sockets", .serialized)
struct LoadGeneratorTests {
  static func configuration(port: Int) -> BenchConfiguration {
    var c = BenchConfiguration()
    c.port = port
    c.connections = 4
    c.pipeline = 8
    c.users = 1_000
    c.warmupSeconds = 0
    return c
  }

  @Test("every request is answered once by the real server, and the answers are counted right")
  func realServer() async throws {
    let handler = CountingHandler()
    let server = try RPCServer.bind(host: "127.0.0.1", port: 0, handler: handler, logger: Logger(label: "bench-test"))
    async let serving: Void = server.run()
    var c = Self.configuration(port: server.port)
    c.requests = 5_003
    c.threads = 2
    c.getSubscriptionShare = 0.25
    c.hitRatio = 0.9
    let result = try await runBench(c)
    try await server.close()
    try await serving
    #expect(result.requests == 5_003)
    #expect(result.sent == 5_003)
    #expect(result.errors.total == 0)
    let asked = handler.asked.load(ordering: .relaxed)
    let getSubscription = handler.getSubscription.load(ordering: .relaxed)
    #expect(asked + getSubscription == 5_003)
    #expect((1_000...1_500).contains(getSubscription), "\(getSubscription) of 5003 at 25%")
    // The bench saw exactly the yeses the server gave.
    let yes = handler.yes.load(ordering: .relaxed)
    #expect(abs(result.activeShare - Double(yes) / Double(asked)) < 1e-9)
    // Half the members are even; misses (user numbers ≥ 1000) are even half the time too.
    #expect((0.4...0.6).contains(result.activeShare))
    #expect(result.latency.maxUs > 0)
  }

  @Test("answers in any order are matched by request id")
  func outOfOrder() async throws {
    let server = try await ScriptedRPCServer.start(.reverseEachBurst)
    var c = Self.configuration(port: server.port)
    c.requests = 4_000
    c.pipeline = 16
    let result = try await runBench(c)
    await server.stop()
    #expect(result.requests == 4_000)
    #expect(result.errors.total == 0)
    #expect(result.activeShare == 1)
  }

  @Test("an answer given twice, or for an id never sent, is reported")
  func unmatched() async throws {
    for behaviour in [ScriptedRPCServer.Behaviour.duplicate(10), .unknownId(10)] {
      let server = try await ScriptedRPCServer.start(behaviour)
      var c = Self.configuration(port: server.port)
      c.connections = 1
      c.requests = 100
      c.pipeline = 4
      if case .unknownId = behaviour {
        // The request whose answer never comes is given up on; keep that short.
        c.requests = nil
        c.durationSeconds = 0.3
      }
      let result = try await runBench(c)
      await server.stop()
      #expect(result.errors.unmatched == 1, "\(behaviour): \(result.errors)")
      if case .unknownId = behaviour {
        #expect(result.errors.unanswered == 1)
      } else {
        #expect(result.requests == 100)
      }
    }
  }

  @Test("open loop sends on schedule; a stall shows in its latency, corrected for coordinated omission")
  func openLoop() async throws {
    // 1 connection, unpipelined, 1000 req/s for 1 s; the 100th answer is held back 200 ms.
    var c = Self.configuration(port: 0)
    c.connections = 1
    c.pipeline = 1
    c.durationSeconds = 1

    let closedServer = try await ScriptedRPCServer.start(.stall(100, ms: 200))
    c.port = closedServer.port
    let closed = try await runBench(c)
    await closedServer.stop()

    let openServer = try await ScriptedRPCServer.start(.stall(100, ms: 200))
    c.port = openServer.port
    c.rate = 1_000
    let open = try await runBench(c)
    await openServer.stop()

    #expect(open.errors.total == 0)
    // Never past its schedule (a closed loop sends thousands in the same second). How much of
    // the backlog of the stall it catches up before the second ends depends on the machine's
    // load (two cores under the full suite sent 875), so below it only says the run went on
    // well past the stall at the 100th answer.
    #expect((300...1_010).contains(open.sent), "sent \(open.sent) at 1000/s for 1 s")
    // Closed loop: one slow answer among thousands, and the tail hides the stall.
    #expect(closed.latency.maxUs >= 190_000)
    #expect(closed.latency.p90Us < 50_000, "\(closed.latency)")
    // Open loop: the ~200 requests scheduled during the stall waited, and say so.
    #expect(open.latency.p90Us >= 50_000, "\(open.latency)")
    #expect(open.latency.maxUs >= 190_000)
  }

  @Test("open loop waits for the next due request instead of spinning: the generator uses little CPU")
  func openLoopSleeps() async throws {
    // 4 connections at 2000 req/s in all: a request is due every 0.5 ms, always within the
    // millisecond an epoll timeout in ms can express. A busy poll uses a whole core here.
    let handler = CountingHandler()
    let server = try RPCServer.bind(host: "127.0.0.1", port: 0, handler: handler, logger: Logger(label: "bench-test"))
    async let serving: Void = server.run()
    var c = Self.configuration(port: server.port)
    c.threads = 1
    c.rate = 2_000
    c.durationSeconds = 1
    let result = try await runBench(c)
    try await server.close()
    try await serving
    #expect(result.errors.total == 0)
    #expect((1_000...2_010).contains(result.sent), "sent \(result.sent) at 2000/s for 1 s")
    #expect(result.generatorCPUSeconds > 0)
    #expect(result.generatorCPUShare < 0.5, "the generator used \(result.generatorCPUShare) of a core")
  }

  @Test("a server that is not there is a clear error")
  func refused() async throws {
    var c = Self.configuration(port: 1)
    c.requests = 1
    await #expect(throws: BenchError.self) { try await runBench(c) }
  }
}

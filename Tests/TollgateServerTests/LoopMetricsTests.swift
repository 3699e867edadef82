import Logging
import Testing
import TollgateCallers
import TollgateContract
import TollgateServer
import TollgateTesting

/// The fast port's metrics (issue 29): each event-loop thread counts its own calls in plain
/// memory, and `RPCServer.metrics()` asks every loop through its mailbox and sums what they say.
@Suite("RPC server: calls counted per loop and summed on scrape")
struct LoopMetricsTests {
  static let logger = Logger(label: "test.rpc.metrics")
  static let isSubscriber = Int(EntitlementsMethod.isSubscriber.rawValue)

  @Test("calls over many connections on four loops: every call counted once, by method and outcome, with its time")
  func summedOverLoops() async throws {
    let handler = FakeEntitlementsHandler()
    handler.release()
    let server = try RPCServer.bind(
      listeners: [.tcp(host: "127.0.0.1", port: 0)], handler: handler, threads: 4, logger: Self.logger)
    async let serving: Void = server.run()
    #expect(await server.metrics().calls == .empty)

    // 12 connections, each with a read of 5 IsSubscriber calls (the hot path answers them
    // together), one the handler leaves to the message path ("slow"), a GetSubscription and a
    // method nobody knows.
    let connections = 12
    try await withThrowingTaskGroup(of: Int.self) { group in
      for connection in 0..<connections {
        group.addTask {
          var bytes: [UInt8] = []
          for id in 1...5 { bytes += try RequestFrames.isSubscriber(id: UInt32(id), user: id == 1 ? "yes" : "no") }
          bytes += try RequestFrames.isSubscriber(id: 6, user: "slow")
          var request = Tollgate_V1_GetSubscriptionRequest()
          request.userID = "c\(connection)"
          bytes += RawWire.request(
            methodIndex: EntitlementsMethod.getSubscription.rawValue, requestId: 7,
            payload: try request.serializedBytes())
          bytes += RawWire.request(methodIndex: 999, requestId: 8, payload: [])
          return try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 8).count
        }
      }
      for try await answered in group { #expect(answered == 8) }
    }

    let counted = await server.metrics().calls
    #expect(counted.calls(method: Self.isSubscriber, outcome: .ok) == UInt64(connections * 6))
    #expect(counted.calls(method: Self.isSubscriber) == UInt64(connections * 6))
    #expect(
      counted.calls(method: Int(EntitlementsMethod.getSubscription.rawValue), outcome: .ok) == UInt64(connections))
    #expect(counted.calls(method: CallCounters.unknownMethod, outcome: .failed) == UInt64(connections))
    // Every call is in its method's histogram once, and took some time.
    for method in [Self.isSubscriber, Int(EntitlementsMethod.getSubscription.rawValue), CallCounters.unknownMethod] {
      #expect(counted.buckets(method: method).reduce(0, +) == counted.calls(method: method))
      #expect(counted.sumNanoseconds(method: method) > 0)
    }
    #expect(counted.authenticationFailures == 0)
    // A scrape counts nothing itself: the next one says the same.
    #expect(await server.metrics().calls == counted)

    try await server.close()
    try await serving
    // The loops have ended: a scrape waits for none of them.
    #expect(await server.metrics().calls == .empty)
  }

  @Test(
    "a failed Authenticate and a call refused unauthenticated are authentication failures; deferred calls are timed")
  func authenticationAndDeferred() async throws {
    var config = RPCServer.Config.defaults
    config.access = .callers(
      CallerRegistry([
        CallerKey(name: "backend", keySha256: CallerKey.digest(of: "good-key"), scopes: [.read, .submit])
      ]))
    try await withRPCServer(config: config, logger: Self.logger) { server, _ in
      let refused =
        try RawWire.authenticate(id: 1, caller: "backend", key: "wrong")
        + RequestFrames.isSubscriber(id: 2, user: "yes")
      #expect(try await RawWire.exchange(port: server.port, chunks: [refused], frames: 2).count == 2)
      let admitted =
        try RawWire.authenticate(id: 1, caller: "backend", key: "good-key") + RequestFrames.submitPurchase(id: 2)
      #expect(try await RawWire.exchange(port: server.port, chunks: [admitted], frames: 2).count == 2)

      let counted = await server.metrics().calls
      let authenticate = Int(EntitlementsMethod.authenticate.rawValue)
      let submit = Int(EntitlementsMethod.submitPurchase.rawValue)
      #expect(counted.calls(method: authenticate, outcome: .unauthenticated) == 1)
      #expect(counted.calls(method: authenticate, outcome: .ok) == 1)
      #expect(counted.calls(method: Self.isSubscriber, outcome: .unauthenticated) == 1)
      #expect(counted.authenticationFailures == 2)
      // SubmitPurchase answered off the loop, counted when its answer came back.
      #expect(counted.calls(method: submit, outcome: .ok) == 1)
      #expect(counted.buckets(method: submit).reduce(0, +) == 1)
    }
  }

  @Test("the histogram's bucket for a time is the first bound it does not pass")
  func buckets() {
    let counters = CallCounters()
    var expected = [UInt64](repeating: 0, count: CallCounters.bucketBoundsNs.count + 1)
    for (index, bound) in CallCounters.bucketBoundsNs.enumerated() {
      counters.record(method: 0, outcome: .ok, nanoseconds: bound)
      counters.record(method: 0, outcome: .ok, nanoseconds: bound + 1)
      expected[index] += 1
      expected[index + 1] += 1
    }
    counters.record(method: 0, outcome: .ok, count: 3, nanoseconds: 0)
    expected[0] += 3
    let snapshot = counters.snapshot()
    #expect(Array(snapshot.buckets(method: 0)) == expected)
    #expect(snapshot.calls(method: 0) == UInt64(CallCounters.bucketBoundsNs.count * 2 + 3))
    #expect(snapshot.sumNanoseconds(method: 0) == CallCounters.bucketBoundsNs.reduce(0) { $0 + 2 * $1 + 1 })
  }

  @Test("a SubmitPurchase answered RESOURCE_EXHAUSTED is a submission limited; snapshots add up")
  func limitedAndAdded() {
    let first = CallCounters()
    let second = CallCounters()
    let submit = Int(EntitlementsMethod.submitPurchase.rawValue)
    first.record(method: submit, outcome: .resourceExhausted, nanoseconds: 10)
    second.record(method: submit, outcome: .resourceExhausted, count: 2, nanoseconds: 10)
    second.record(method: Self.isSubscriber, outcome: .resourceExhausted, nanoseconds: 10)
    var total = first.snapshot()
    total.add(second.snapshot())
    #expect(total.submissionsLimited == 3)
    #expect(total.calls(method: submit, outcome: .resourceExhausted) == 3)
    #expect(total.authenticationFailures == 0)
    #expect(CallSnapshot.methodName(submit) == "SubmitPurchase")
    #expect(CallSnapshot.methodName(CallCounters.unknownMethod) == "unknown")
  }
}

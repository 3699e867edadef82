import Logging
import NIOCore
import Testing
import TollgateClient
import TollgateContract
import TollgateServer
import TollgateTesting
import TollgateWire

@Suite("RPC server over loopback")
struct RPCServerTests {
  static let logger = Logger(label: "test.rpc")

  func withServer(
    config: RPCServer.Config = .defaults, handler: FakeEntitlementsHandler = FakeEntitlementsHandler(),
    _ body: (RPCServer, FakeEntitlementsHandler) async throws -> Void
  ) async throws {
    try await withRPCServer(config: config, handler: handler, releasing: false, logger: Self.logger, body)
  }

  @Test("pipelined requests each get one answer with their request id")
  func pipelining() async throws {
    try await withServer { server, _ in
      let users = ["yes", "no", "yes", "no", "yes"]
      var bytes: [UInt8] = []
      for (offset, user) in users.enumerated() {
        bytes += try RequestFrames.isSubscriber(id: UInt32(100 + offset), user: user)
      }
      let responses = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: users.count)
      #expect(responses.map(\.requestId).sorted() == [100, 101, 102, 103, 104])
      for response in responses {
        #expect(response.status == 0)
        #expect(response.methodIndex == 0)
        let message = try Tollgate_V1_IsSubscriberResponse(serializedBytes: response.payload)
        #expect(message.active == (users[Int(response.requestId) - 100] == "yes"))
      }
    }
  }

  @Test("one read mixing hot-path calls, calls left to the message path and other methods is answered in order")
  func mixedRead() async throws {
    try await withServer { server, handler in
      var getSubscription = Tollgate_V1_GetSubscriptionRequest()
      getSubscription.userID = "g"
      let bytes =
        try RequestFrames.isSubscriber(id: 1, user: "yes") + RequestFrames.isSubscriber(id: 2, user: "slow")
        + RequestFrames.isSubscriber(id: 3, user: "no") + RequestFrames.isSubscriber(id: 4, user: "yes")
        + RawWire.request(methodIndex: 1, requestId: 5, payload: try getSubscription.serializedBytes())
        + RawWire.request(methodIndex: 0, requestId: 6, payload: [0xFF])
        + RequestFrames.isSubscriber(id: 7, user: "slow") + RequestFrames.isSubscriber(id: 8, user: "yes")
      let responses = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 8)
      #expect(responses.map(\.requestId) == [1, 2, 3, 4, 5, 6, 7, 8])
      #expect(responses.map(\.status) == [0, 0, 0, 0, 0, 1, 0, 0])
      for response in responses where [1, 2, 3, 4, 7, 8].contains(response.requestId) {
        let message = try Tollgate_V1_IsSubscriberResponse(serializedBytes: response.payload)
        #expect(message.active == [1, 4, 8].contains(response.requestId))
        #expect(message.productID == "premium")
      }
      #expect(try Tollgate_V1_GetSubscriptionResponse(serializedBytes: responses[4].payload).userID == "g")
      #expect(handler.answeredInBulk.load(ordering: .relaxed) == 4)
      #expect(handler.answeredAsMessages.load(ordering: .relaxed) == 2)
    }
  }

  @Test(
    "an oversized frame, then a run split mid-payload and mid-header around calls left to the message path: answered in order"
  )
  func oversizedThenSplitRun() async throws {
    var config = RPCServer.Config.defaults
    config.maximumPayloadLength = 64
    try await withServer(config: config) { server, _ in
      let users = ["yes", "slow", "no", "yes", "slow", "yes", "no", "slow"]
      let run = try users.enumerated().flatMap {
        try RequestFrames.isSubscriber(id: UInt32(10 + $0.offset), user: $0.element)
      }
      let big = RawWire.request(methodIndex: 0, requestId: 1, payload: Array(repeating: 0x0A, count: 500))
      let bytes = big + run
      // Cuts: inside the oversized payload, inside the second call's payload, inside the fifth
      // call's header.
      let frame = run.count / users.count
      let cuts = [200, big.count + frame + 15, big.count + 4 * frame + 5]
      var chunks: [[UInt8]] = []
      var start = 0
      for cut in cuts + [bytes.count] {
        chunks.append(Array(bytes[start..<cut]))
        start = cut
      }
      let responses = try await RawWire.exchange(port: server.port, chunks: chunks, frames: 1 + users.count)
      #expect(responses.map(\.requestId) == [1] + (10..<UInt32(10 + users.count)).map { $0 })
      #expect(responses.map(\.status) == [1] + users.map { _ in 0 })
      for (response, user) in zip(responses.dropFirst(), users) {
        #expect(try Tollgate_V1_IsSubscriberResponse(serializedBytes: response.payload).active == (user == "yes"))
      }
    }
  }

  @Test("unknown method and undecodable payload get SERVICE_FAILED, and the connection keeps working")
  func badRequestsKeepConnection() async throws {
    try await withServer { server, _ in
      let bytes =
        try RawWire.request(methodIndex: 99, requestId: 1, payload: [])
        + RawWire.request(methodIndex: 0, requestId: 2, payload: [0xFF, 0xFF, 0xFF])  // truncated varint tag
        + RequestFrames.isSubscriber(id: 3, user: "yes")
      let responses = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 3)
      let byId = Dictionary(uniqueKeysWithValues: responses.map { ($0.requestId, $0) })
      #expect(byId[1]?.status == 1)
      #expect(byId[1]?.methodIndex == 99)
      #expect(byId[1]?.payload == [])
      #expect(byId[2]?.status == 1)
      #expect(byId[3]?.status == 0)
      #expect(try Tollgate_V1_IsSubscriberResponse(serializedBytes: byId[3]?.payload ?? []).active)
    }
  }

  @Test("an oversized payload gets SERVICE_FAILED once its header arrives, and the connection keeps working")
  func oversized() async throws {
    var config = RPCServer.Config.defaults
    config.maximumPayloadLength = 64
    try await withServer(config: config) { server, _ in
      let big = RawWire.request(methodIndex: 0, requestId: 1, payload: Array(repeating: 0x0A, count: 10_000))
      let good = try RequestFrames.isSubscriber(id: 2, user: "yes")
      let responses = try await RawWire.exchange(port: server.port, chunks: [big, good], frames: 2)
      #expect(responses.map(\.requestId) == [1, 2])
      #expect(responses.map(\.status) == [1, 0])
    }
  }

  @Test("more deferred calls than the per-connection limit get TOO_MANY_PENDING; the rest are answered")
  func tooManyPending() async throws {
    var config = RPCServer.Config.defaults
    config.maximumPendingPerConnection = 2
    try await withServer(config: config) { server, handler in
      var submit = Tollgate_V1_SubmitPurchaseRequest()
      submit.userID = "u"
      let payload: [UInt8] = try submit.serializedBytes()
      var bytes: [UInt8] = []
      for id in 1...5 { bytes += RawWire.request(methodIndex: 2, requestId: UInt32(id), payload: payload) }
      bytes += RawWire.request(methodIndex: 3, requestId: 6, payload: [])  // Health is answered at once
      async let exchange = RawWire.exchange(port: server.port, chunks: [bytes], frames: 6)
      // Let the two admitted calls start, then let them finish.
      try await handler.waitUntilSubmitted(2)
      try await Task.sleep(for: .milliseconds(50))
      handler.release()
      let responses = try await exchange
      let status = Dictionary(uniqueKeysWithValues: responses.map { ($0.requestId, $0.status) })
      #expect(status == [1: 0, 2: 0, 3: 2, 4: 2, 5: 2, 6: 0])
      #expect(handler.submitted.load(ordering: .relaxed) == 2)
    }
  }

  @Test("garbage, a half frame and an abrupt close do not affect other clients")
  func garbageThenClose() async throws {
    try await withServer { server, _ in
      // A header promising 1000 bytes, 3 of them, then the client goes away.
      _ = try await RawWire.exchange(
        port: server.port, chunks: [RawWire.header(methodIndex: 0, requestId: 9, length: 1000) + [1, 2, 3]], frames: 0)
      _ = try await RawWire.exchange(port: server.port, chunks: [[0xFF, 0xFE]], frames: 0)
      let client = TollgateClient(host: "127.0.0.1", port: server.port)
      let response = try await client.isSubscriber(userId: "yes", entitlement: "premium")
      #expect(response.active)
      await client.close()
    }
  }

  @Test("a cancelled client call returns at once with CancellationError; the connection stays usable")
  func clientCancellation() async throws {
    try await withServer { server, handler in
      let client = TollgateClient(host: "127.0.0.1", port: server.port)
      let request = {
        var request = Tollgate_V1_SubmitPurchaseRequest()
        request.userID = "u"
        return request
      }()
      let started = ContinuousClock.now
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
          await #expect(throws: CancellationError.self) {
            _ = try await client.submitPurchase(request, timeout: .seconds(30))
          }
        }
        // The handler holds the call until release(): only cancellation can end it early.
        try await handler.waitUntilSubmitted()
        group.cancelAll()
        try await group.waitForAll()
      }
      #expect(ContinuousClock.now - started < .seconds(10))
      #expect(try await client.isSubscriber(userId: "yes", entitlement: "premium").active)
      await client.close()
    }
  }
}

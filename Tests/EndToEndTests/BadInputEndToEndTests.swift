import NIOCore
import NIOPosix
import Testing
import TollgateClient
import TollgateCore
import TollgateServer
import TollgateService
import TollgateStorage
import TollgateTesting

@Suite("Bad input end to end")
struct BadInputEndToEndTests {
  func isSubscriberPayload(_ user: String) throws -> [UInt8] {
    var request = Tollgate_V1_IsSubscriberRequest()
    request.userID = user
    request.entitlement = "premium"
    return try request.serializedBytes()
  }

  @Test(
    "unknown method, undecodable payload and oversized payload each fail alone; the connection answers the next call")
  func frameLevelFailures() async throws {
    var rpc = RPCServer.Config.defaults
    rpc.maximumPayloadLength = 1_024
    let expires = SystemClock.nowMs() + 3_600_000
    try await withService(rpc: rpc, seed: [.sample(userId: "u", expiresAtMs: expires)]) { service in
      let chunks: [[UInt8]] = [
        RawWire.request(methodIndex: 1_000, requestId: 1, payload: []),  // no such method (0-12 are taken)
        RawWire.request(methodIndex: 0xFFFF_FFFF, requestId: 2, payload: [1, 2, 3]),
        RawWire.request(methodIndex: 0, requestId: 3, payload: [0x0A, 0x05, 0x61]),  // string field cut short
        RawWire.request(methodIndex: 1, requestId: 4, payload: Array(repeating: 0, count: 5_000)),
        RawWire.request(methodIndex: 0, requestId: 5, payload: try isSubscriberPayload("u")),
      ]
      let responses = try await RawWire.exchange(port: service.server.port, chunks: chunks, frames: 5)
      #expect(responses.map(\.requestId) == [1, 2, 3, 4, 5])
      #expect(responses.map(\.status) == [1, 1, 1, 1, 0])
      #expect(responses.map(\.methodIndex) == [1_000, 0xFFFF_FFFF, 0, 1, 0])
      #expect(try Tollgate_V1_IsSubscriberResponse(serializedBytes: responses[4].payload).active)
    }
  }

  @Test("SubmitPurchase beyond the pending limit gets TOO_MANY_PENDING; admitted ones are stored")
  func tooManyPending() async throws {
    var rpc = RPCServer.Config.defaults
    rpc.maximumPendingPerConnection = 1
    try await withService(rpc: rpc) { service in
      var submit = Tollgate_V1_SubmitPurchaseRequest()
      submit.userID = "buyer"
      submit.store = .appStore
      submit.receipt = "2000000001"
      let payload: [UInt8] = try submit.serializedBytes()
      var bytes: [UInt8] = []
      for id in 1...4 { bytes += RawWire.request(methodIndex: 2, requestId: UInt32(id), payload: payload) }
      let responses = try await RawWire.exchange(port: service.server.port, chunks: [bytes], frames: 4)
      let status = Dictionary(uniqueKeysWithValues: responses.map { ($0.requestId, $0.status) })
      #expect(status == [1: 0, 2: 2, 3: 2, 4: 2])
      let accepted = try Tollgate_V1_SubmitPurchaseResponse(
        serializedBytes: try #require(responses.first { $0.requestId == 1 }).payload)
      #expect(accepted.status == .pending)
      let id = try #require(Int64(accepted.submissionID))
      #expect(try await service.storage.submission(id: id)?.submission.userId == "buyer")
      #expect(try await service.storage.submission(id: id + 1) == nil)
    }
  }

  @Test("application errors travel in the response with their documented code")
  func applicationErrors() async throws {
    try await withService { service in
      await #expect(throws: TollgateClientError.self) {
        try await service.client.isSubscriber(userId: "", entitlement: "premium")
      }
      do {
        _ = try await service.client.getSubscription(userId: "nobody")
        Issue.record("expected NOT_FOUND")
      } catch let error as TollgateClientError {
        #expect(error.code == .notFound)
      }
      do {
        var submit = Tollgate_V1_SubmitPurchaseRequest()
        submit.userID = "u"
        submit.store = .amazon
        submit.receiptID = "r"
        _ = try await service.client.submitPurchase(submit)
        Issue.record("expected INVALID_ARGUMENT")
      } catch let error as TollgateClientError {
        #expect(error.code == .invalidArgument)
        #expect(error.message == "store AMAZON needs receipt_id and amazon_user_id")
      }
    }
  }

  @Test("a client that vanishes mid-frame, or sends garbage, leaves the server serving others")
  func vanishingClients() async throws {
    let expires = SystemClock.nowMs() + 3_600_000
    try await withService(seed: [.sample(userId: "u", expiresAtMs: expires)]) { service in
      for _ in 0..<20 {
        _ = try await RawWire.exchange(
          port: service.server.port, chunks: [RawWire.header(methodIndex: 0, requestId: 1, length: 900) + [0x0A]],
          frames: 0)
        _ = try await RawWire.exchange(port: service.server.port, chunks: [Array(repeating: 0xFF, count: 7)], frames: 0)
      }
      #expect(try await service.client.isSubscriber(userId: "u", entitlement: "premium").active)
    }
  }
}

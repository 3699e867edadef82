import GRPCCore
import Testing
import TollgateContract
import TollgateTesting

@testable import TollgateGRPC

@Suite("gRPC door: request ids (x-request-id)")
struct GRPCRequestIdTests {
  static func metadata(key: String?, requestId: String?) -> Metadata {
    var metadata = key.map { TestCallers.bearer($0) } ?? [:]
    if let requestId { metadata.addString(requestId, forKey: "x-request-id") }
    return metadata
  }

  @Test("a sane x-request-id is echoed and handed to SubmitPurchase; another is replaced by a new one")
  func echoed() async throws {
    let handler = FakeEntitlementsHandler()
    try await withLiveDoor(handler: handler) { _, port in
      try await withLiveClient(port: port) { client, _ in
        var request = Tollgate_V1_SubmitPurchaseRequest()
        request.userID = "u"
        request.receipt = "r"
        let echoed = try await client.submitPurchase(
          request, metadata: Self.metadata(key: TestCallers.submitterKey, requestId: "abc-123")
        ) { $0.metadata[stringValues: "x-request-id"].map { $0 } }
        #expect(echoed == ["abc-123"])
        let made = try await client.submitPurchase(
          request, metadata: Self.metadata(key: TestCallers.submitterKey, requestId: "no spaces, please")
        ) { $0.metadata[stringValues: "x-request-id"].map { $0 } }
        let new = try #require(made.first)
        #expect(made.count == 1 && new.wholeMatch(of: /[0-9a-f]{16}/) != nil, "\(made)")
        #expect(handler.requestIds.withLock { $0 } == ["abc-123", new])
        // Reads carry one too.
        let read = try await client.isSubscriber(
          GRPCDoorTests.isSubscriber("yes"), metadata: Self.metadata(key: TestCallers.readerKey, requestId: nil)
        ) { $0.metadata[stringValues: "x-request-id"].map { $0 } }
        #expect(read.count == 1 && read[0].wholeMatch(of: /[0-9a-f]{16}/) != nil, "\(read)")
      }
    }
  }

  @Test("a refused call carries its request id with its status")
  func refused() async throws {
    try await withLiveDoor { _, port in
      try await withLiveClient(port: port) { client, _ in
        let refused = await rpcError {
          try await client.isSubscriber(
            GRPCDoorTests.isSubscriber("yes"), metadata: Self.metadata(key: nil, requestId: "trace.7_x"))
        }
        #expect(refused?.code == .unauthenticated)
        #expect(refused?.metadata[stringValues: "x-request-id"].map { $0 } == ["trace.7_x"])
      }
    }
  }
}

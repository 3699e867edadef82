import Logging
import Testing
import TollgateContract
import TollgateServer
import TollgateTesting

@Suite("Connections readable together are read in one round")
struct ReadRoundTests {
  /// Sends one IsSubscriber on each of `connections` at once and checks each connection gets
  /// its own answer (the entitlement names the connection; the handler echoes it as product id).
  static func oneRequestEach(_ connections: [RawConnection], round: Int) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (number, connection) in connections.enumerated() {
        group.addTask {
          try await connection.send(
            RequestFrames.isSubscriber(
              id: UInt32(round * 1_000 + number), user: number.isMultiple(of: 2) ? "yes" : "user-\(number)",
              entitlement: "connection-\(number)"))
        }
      }
      try await group.waitForAll()
    }
    for (number, connection) in connections.enumerated() {
      let answers = try await connection.receive(frames: 1)
      try #require(answers.count == 1)
      #expect(answers[0].requestId == UInt32(round * 1_000 + number))
      let message = try Tollgate_V1_IsSubscriberResponse(serializedBytes: answers[0].payload)
      #expect(message.productID == "connection-\(number)")
      #expect(message.active == number.isMultiple(of: 2))
    }
  }

  @Test("each connection gets its own answers, and a round's requests are prepared together")
  func roundsAnswerEachConnection() async throws {
    let handler = FakeEntitlementsHandler()
    let server = try RPCServer.bind(
      host: "127.0.0.1", port: 0, config: .defaults, handler: handler, logger: Logger(label: "test.rpc"))
    async let serving: Void = server.run()
    var connections: [RawConnection] = []
    for _ in 0..<16 { connections.append(try await RawConnection.connect(port: server.port)) }
    // Whether several connections wake the server together is the scheduler's choice: send
    // rounds until one has been prepared together (nearly always the first few).
    var round = 0
    while round < 50, handler.prepared.withLock({ !$0.contains { $0.count > 1 } }) {
      try await Self.oneRequestEach(connections, round: round)
      round += 1
    }
    let prepared = handler.prepared.withLock { $0 }
    #expect(prepared.contains { $0.count > 1 })
    // Only requests that were then answered: every prepared user is one this test sent.
    #expect(prepared.joined().allSatisfy { $0 == "yes" || $0.hasPrefix("user-") })
    for connection in connections { try await connection.close() }
    handler.release()
    try await server.close()
    try await serving
  }
}

import Logging
import Testing
import TollgateContract
import TollgateServer
import TollgateTesting
import TollgateWire

/// Issue 25 item 3: partial frames are charged what arrived, and a connection without an
/// authenticated caller may announce only a small frame.
@Suite("RPC server: the partial-frame budget")
struct RPCPartialFrameBudgetTests {
  static let logger = Logger(label: "test.rpc.budget")

  func withServer(config: RPCServer.Config = .defaults, _ body: (RPCServer) async throws -> Void) async throws {
    try await withRPCServer(config: config, logger: Self.logger) { server, _ in try await body(server) }
  }

  /// A request sent in two pieces, 100 ms apart, and its answer.
  static func answerInTwoPieces(port: Int, request: [UInt8], id: UInt32) async throws -> [UInt32] {
    let connection = try await RawConnection.connect(port: port)
    try await connection.send(Array(request.prefix(20)))
    try await Task.sleep(for: .milliseconds(100))
    try await connection.send(Array(request.dropFirst(20)))
    let answered = try await connection.receive(frames: 1).map(\.requestId)
    try await connection.close()
    return answered
  }

  @Test("260 frame starts announcing 1 MiB do not starve the budget: a request arriving in two pieces is answered")
  func frameStartsDoNotStarve() async throws {
    try await withServer { server in
      let flood = SocketFlood()
      defer { flood.closeAll() }
      // Each a 12-byte header announcing 1 MiB and one byte of it.
      try flood.connect(
        count: 260, port: server.port, sending: RawWire.header(methodIndex: 0, requestId: 1, length: 1 << 20) + [0x0A])
      #expect(await eventually(timeout: .seconds(30)) { server.bufferedBytes >= 260 * 13 } != nil)
      #expect(server.bufferedBytes <= 260 * 4_096, "charged what arrived, not what was announced")
      let request = try RequestFrames.isSubscriber(id: 77, user: "yes", entitlement: String(repeating: "e", count: 200))
      #expect(try await Self.answerInTwoPieces(port: server.port, request: request, id: 77) == [77])
      #expect(flood.closedByPeer() == 0, "no frame start was refused either")
    }
  }

  @Test("a frame's reservation grows with what arrives, up to what the frame needs")
  func reservationGrows() async throws {
    try await withServer { server in
      let connection = try await RawConnection.connect(port: server.port)
      try await connection.send(RawWire.header(methodIndex: 0, requestId: 1, length: 512 << 10) + [0x0A, 0x01])
      #expect(await eventually(timeout: .seconds(30)) { server.bufferedBytes > 0 } != nil)
      #expect(server.bufferedBytes < 64 << 10, "a frame start costs little")
      try await connection.send([UInt8](repeating: 0x61, count: 300 << 10))
      #expect(await eventually(timeout: .seconds(30)) { server.bufferedBytes >= 300 << 10 } != nil)
      #expect(server.bufferedBytes <= 1 << 20)
      try await connection.close()
      #expect(await eventually(timeout: .seconds(30)) { server.bufferedBytes == 0 } != nil)
    }
  }

  @Test("callers configured: a connection without a caller may announce only a small frame; a caller may announce more")
  func unauthenticatedAnnounceCap() async throws {
    var config = RPCServer.Config.defaults
    config.access = .callers(RPCAuthenticationTests.registry())
    try await withServer(config: config) { server in
      // An Authenticate announcing 64 KiB is refused from its header: nothing is held for it.
      let stranger = try await RawConnection.connect(port: server.port)
      try await stranger.send(
        RawWire.header(methodIndex: EntitlementsMethod.authenticate.rawValue, requestId: 5, length: 64 << 10) + [0x0A])
      let refused = try await stranger.receive(frames: 1)
      #expect(refused.map(\.requestId) == [5])
      #expect(refused.first?.status != 0, "answered SERVICE_FAILED, as any payload over the limit")
      #expect(server.bufferedBytes == 0)
      try await stranger.close()

      // Once authenticated, a 64 KiB request is read and answered.
      let reader = try await RPCConnectionDeadlineTests.authenticatedConnection(port: server.port)
      let long = try RequestFrames.isSubscriber(id: 6, user: String(repeating: "u", count: 64 << 10))
      try await reader.send(long)
      let answered = try await reader.receive(frames: 1)
      #expect(answered.map(\.requestId) == [6])
      #expect(answered.first?.status == 0)
      try await reader.close()
    }
  }
}

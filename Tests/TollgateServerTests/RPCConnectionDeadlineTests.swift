import Logging
import Testing
import TollgateServer
import TollgateTesting

/// Issue 25 item 2: every connection has a deadline for progress, and slots are kept for callers
/// that proved themselves when the cap nears.
@Suite("RPC server: deadlines for progress and slots kept for callers")
struct RPCConnectionDeadlineTests {
  static let logger = Logger(label: "test.rpc.deadlines")

  func withServer(config: RPCServer.Config, _ body: (RPCServer) async throws -> Void) async throws {
    try await withRPCServer(config: config, logger: Self.logger) { server, _ in try await body(server) }
  }

  /// Pipelined IsSubscriber requests, `count` of them.
  static func requests(_ count: Int) throws -> [UInt8] {
    var bytes: [UInt8] = []
    for id in 0..<count { bytes += try RequestFrames.isSubscriber(id: UInt32(id), user: "yes") }
    return bytes
  }

  /// Sends requests on every socket of `flood` until none takes a whole batch for half a second:
  /// the server has stopped reading them (its answers back up).
  static func sendUntilBlocked(_ flood: SocketFlood) async throws {
    let batch = try requests(1_000)
    var quietSince = ContinuousClock.now
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now - quietSince < .milliseconds(500) {
      try #require(ContinuousClock.now < deadline, "the server kept reading a peer that never reads")
      if flood.sendToAll(batch) > 0 { quietSince = ContinuousClock.now }
      try await Task.sleep(for: .milliseconds(5))
    }
  }

  /// A raw connection authenticated as the reader of `RPCAuthenticationTests.registry()`.
  static func authenticatedConnection(port: Int, id: UInt32 = 1) async throws -> RawConnection {
    let connection = try await RawConnection.connect(port: port)
    try await connection.send(
      RPCAuthenticationTests.authenticate(id: id, caller: "reader", key: RPCAuthenticationTests.readerKey))
    try #require(try await connection.receive(frames: 1).map(\.requestId) == [id])
    return connection
  }

  @Test("a peer that sends requests and never reads is closed after the write timeout; a slow reader is not")
  func writeTimeout() async throws {
    var config = RPCServer.Config.defaults
    config.writeBufferHighWatermark = 16 << 10
    config.writeTimeout = .seconds(1)
    try await withServer(config: config) { server in
      let flood = SocketFlood()
      defer { flood.closeAll() }
      try flood.connect(count: 1, port: server.port, receiveBuffer: 4_096)
      let reader = try await RawConnection.connect(port: server.port)
      try await Self.sendUntilBlocked(flood)
      // Answers are waiting for it; it goes on sending, which changes nothing.
      flood.sendToAll(try Self.requests(10))
      #expect(await flood.waitUntilClosedByPeer(atLeast: 1, timeout: .seconds(10)), "closed by the write timeout")
      #expect(await eventually(timeout: .seconds(30)) { server.openConnections == 1 } != nil)
      // A peer that reads what it asked for, more slowly than the write timeout, keeps its connection.
      for id in 0..<3 {
        try await reader.send(RequestFrames.isSubscriber(id: UInt32(id), user: "yes"))
        #expect(try await reader.receive(frames: 1).map(\.requestId) == [UInt32(id)])
        try await Task.sleep(for: .milliseconds(700))
      }
      #expect(await reader.waitForClose(timeout: .milliseconds(100)) == false)
      try await reader.close()
    }
  }

  @Test("with callers configured, a connection without an authenticated caller is closed after a short life")
  func unauthenticatedLife() async throws {
    var config = RPCServer.Config.defaults
    config.access = .callers(RPCAuthenticationTests.registry())
    config.unauthenticatedTimeout = .seconds(1)
    try await withServer(config: config) { server in
      let stranger = try await RawConnection.connect(port: server.port)
      let reader = try await Self.authenticatedConnection(port: server.port)
      // Both stay busy (the idle timeout never applies); only the stranger's life runs out.
      let start = ContinuousClock.now
      var id: UInt32 = 10
      while ContinuousClock.now - start < .seconds(4) {
        id += 1
        try? await stranger.send(RequestFrames.isSubscriber(id: id, user: "yes"))
        try await reader.send(RequestFrames.isSubscriber(id: id, user: "yes"))
        #expect(try await reader.receive(frames: 1).map(\.requestId) == [id])
        try await Task.sleep(for: .milliseconds(200))
      }
      #expect(await stranger.waitForClose(timeout: .seconds(1)), "the stranger is closed")
      #expect(await reader.waitForClose(timeout: .milliseconds(100)) == false, "the reader is not")
      try await reader.close()
    }
  }

  @Test("near the cap a new connection takes the slot of the oldest unauthenticated one; callers keep theirs")
  func slotsKeptForCallers() async throws {
    var config = RPCServer.Config.defaults
    config.access = .callers(RPCAuthenticationTests.registry())
    config.maximumConnections = 20
    config.reservedConnections = 4
    try await withServer(config: config) { server in
      let early = try await Self.authenticatedConnection(port: server.port)
      // Strangers that send requests and never read, five times the cap.
      let flood = SocketFlood()
      defer { flood.closeAll() }
      try flood.connect(count: 100, port: server.port, sending: try Self.requests(50))
      #expect(server.openConnections <= 20)
      // A caller arriving now gets in, is answered, and so is the caller from before.
      let late = try await Self.authenticatedConnection(port: server.port, id: 7)
      try await late.send(RequestFrames.isSubscriber(id: 8, user: "yes"))
      #expect(try await late.receive(frames: 1).map(\.requestId) == [8])
      try await early.send(RequestFrames.isSubscriber(id: 9, user: "yes"))
      #expect(try await early.receive(frames: 1).map(\.requestId) == [9])
      #expect(flood.closedByPeer() >= 80, "the strangers made room for each other and for the caller")
      try await late.close()
      try await early.close()
    }
  }
}

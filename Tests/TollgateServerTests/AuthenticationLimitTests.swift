import Logging
import Testing
import TollgateContract
import TollgateServer
import TollgateTesting
import TollgateWire

/// Failed Authenticate calls are limited per source address over every connection, on a server
/// with its real sockets.
@Suite("RPC server: failed authentications per source over loopback")
struct AuthenticationLimitTests {
  static let key = RPCAuthenticationTests.readerKey

  func withServer(
    burst: Int, listeners: [RPCListenAddress] = [.tcp(host: "127.0.0.1", port: 0)],
    _ body: (RPCServer) async throws -> Void
  ) async throws {
    var config = RPCServer.Config.defaults
    config.access = .callers(RPCAuthenticationTests.registry())
    config.failedAuthenticationBurstPerSource = burst
    config.failedAuthenticationsPerMinutePerSource = 1
    try await withRPCServer(listeners: listeners, config: config, logger: Logger(label: "test.rpc.limit")) {
      server, _ in try await body(server)
    }
  }

  static func authenticate(_ server: RPCServer, key: String, then extra: [UInt8] = [], frames: Int = 1)
    async throws -> [RawResponse]
  {
    let bytes = try RPCAuthenticationTests.authenticate(id: 1, caller: "reader", key: key) + extra
    return try await RawWire.exchange(port: server.port, chunks: [bytes], frames: frames)
  }

  static func answer(_ response: RawResponse) throws -> Tollgate_V1_AuthenticateResponse {
    try Tollgate_V1_AuthenticateResponse(serializedBytes: response.payload)
  }

  @Test(
    "reconnecting does not reset the count: past the burst a new connection's Authenticate is refused, a valid key's too"
  )
  func reconnecting() async throws {
    try await withServer(burst: 4) { server in
      // A valid key between the failures gives nothing back.
      for key in ["wrong-1", "wrong-2", Self.key, "wrong-3", "wrong-4"] {
        let answers = try await Self.authenticate(server, key: key)
        #expect(try Self.answer(answers[0]).hasError == (key != Self.key))
      }
      // The fifth attempt with a wrong key, and then the valid key: refused without the key
      // being checked, and the connection closed (the IsSubscriber after it is never answered).
      for key in ["wrong-5", Self.key] {
        let answers = try await Self.authenticate(
          server, key: key, then: RequestFrames.isSubscriber(id: 2, user: "yes"), frames: 2)
        #expect(answers.count == 1)
        let refused = try Self.answer(try #require(answers.first))
        #expect(refused.error.code == .resourceExhausted)
        #expect(refused.error.message.contains("too many failed Authenticate calls from this address"))
      }
    }
  }

  @Test("a valid key does not reset a connection's failures: the third closes it")
  func validKeyDoesNotReset() async throws {
    try await withServer(burst: 100) { server in
      let bytes =
        try RPCAuthenticationTests.authenticate(id: 1, caller: "reader", key: "wrong")
        + RPCAuthenticationTests.authenticate(id: 2, caller: "reader", key: "wrong")
        + RPCAuthenticationTests.authenticate(id: 3, caller: "reader", key: Self.key)
        + RPCAuthenticationTests.authenticate(id: 4, caller: "reader", key: "wrong")
        + RequestFrames.isSubscriber(id: 5, user: "yes")
      let responses = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 5)
      #expect(responses.map(\.requestId) == [1, 2, 3, 4])
      #expect(try responses.map { try Self.answer($0).hasError } == [true, true, false, true])
    }
  }

  @Test("a Unix socket's peer user is a source of its own: its failures do not count against TCP clients")
  func unixSocketPeer() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("tollgate.sock")
    try await withServer(burst: 2, listeners: [.unix(path: path), .tcp(host: "127.0.0.1", port: 0)]) { server in
      func unix(_ key: String) async throws -> Tollgate_V1_AuthenticateResponse {
        let bytes = try RPCAuthenticationTests.authenticate(id: 1, caller: "reader", key: key)
        let answers = try await RawWire.exchange(unixSocket: path, chunks: [bytes], frames: 1)
        return try Self.answer(try #require(answers.first))
      }
      #expect(try await unix("wrong-1").error.code == .unauthenticated)
      #expect(try await unix("wrong-2").error.code == .unauthenticated)
      #expect(try await unix(Self.key).error.code == .resourceExhausted, "the local user used up its failures")
      let tcp = try await Self.authenticate(server, key: Self.key)
      #expect(try !Self.answer(tcp[0]).hasError, "127.0.0.1 over TCP is another source")
    }
  }
}

import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Logging
import TollgateCallers
import TollgateContract
import TollgateHTTPListener

@testable import TollgateGRPC

typealias LiveEntitlementsClient = Tollgate_V1_Entitlements.Client<HTTP2ClientTransport.Posix>
typealias LiveHealthClient = Grpc_Health_V1_Health.Client<HTTP2ClientTransport.Posix>

/// A `GRPCDoor` on 127.0.0.1, any free port, with the real HTTP/2 transport, running for `body`
/// and shut down gracefully after it (`run()` must then return).
func withLiveDoor(
  handler: FakeEntitlementsHandler = FakeEntitlementsHandler(), gate: CallerGate = TestCallers.gate(),
  configure: (inout GRPCDoor.Config) -> Void = { _ in },
  _ body: (GRPCDoor, Int) async throws -> Void
) async throws {
  var config = GRPCDoor.Config(address: ListenAddress(host: "127.0.0.1", port: 0))
  configure(&config)
  let door = try GRPCDoor(config: config, handler: handler, gate: gate, logger: Logger(label: "test.grpc.door"))
  try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await door.run() }
    do {
      let address = try await door.listeningAddress()
      try await body(door, address.port)
    } catch {
      door.beginGracefulShutdown()
      throw error
    }
    door.beginGracefulShutdown()
    try await group.waitForAll()
  }
}

/// A stock grpc-swift client over HTTP/2 (plaintext unless `security` says otherwise) to
/// 127.0.0.1:`port`.
func withLiveClient<Result: Sendable>(
  port: Int, security: HTTP2ClientTransport.Posix.TransportSecurity = .plaintext,
  _ body: (LiveEntitlementsClient, LiveHealthClient) async throws -> Result
) async throws -> Result {
  let transport = try HTTP2ClientTransport.Posix(
    target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: security)
  return try await withGRPCClient(transport: transport) { client in
    try await body(LiveEntitlementsClient(wrapping: client), LiveHealthClient(wrapping: client))
  }
}

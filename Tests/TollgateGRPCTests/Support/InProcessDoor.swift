import GRPCCore
import GRPCInProcessTransport
import Logging
import TollgateCallers
import TollgateContract
import TollgateServer

@testable import TollgateGRPC

/// The callers the tests use, one per scope set, and a gate over them.
enum TestCallers {
  static let readerKey = "reader-key-0123456789abcdef"
  static let submitterKey = "submitter-key-0123456789abcdef"
  static let bothKey = "both-key-0123456789abcdef"
  static let adminKey = "admin-key-0123456789abcdef"

  static func registry() -> CallerRegistry {
    CallerRegistry([
      CallerKey(name: "reader", keySha256: CallerKey.digest(of: readerKey), scopes: [.read]),
      CallerKey(name: "submitter", keySha256: CallerKey.digest(of: submitterKey), scopes: [.submit]),
      CallerKey(name: "both", keySha256: CallerKey.digest(of: bothKey), scopes: [.read, .submit]),
      CallerKey(name: "ops", keySha256: CallerKey.digest(of: adminKey), scopes: [.admin]),
    ])
  }

  static func gate(
    access: CallerAccess = .callers(registry()), failuresPerMinute: Int = 600, failureBurst: Int = 100,
    submitsPerSecond: Int = 1_000
  ) -> CallerGate {
    CallerGate(
      access: access,
      authenticationLimiter: AuthenticationLimiter(
        perMinute: failuresPerMinute, burst: failureBurst, maximumSources: 1_000),
      submitLimiter: SubmitRateLimiter(perSecond: submitsPerSecond, burst: submitsPerSecond))
  }

  static func bearer(_ key: String) -> Metadata { ["authorization": "Bearer \(key)"] }
}

typealias EntitlementsClient = Tollgate_V1_Entitlements.Client<InProcessTransport.Client>
typealias HealthClient = Grpc_Health_V1_Health.Client<InProcessTransport.Client>

/// The door's services and interceptor served in process (no sockets), and clients for both.
func withInProcessDoor<Result: Sendable>(
  handler: FakeEntitlementsHandler = FakeEntitlementsHandler(), gate: CallerGate = TestCallers.gate(),
  shutdown: DoorShutdown = DoorShutdown(), healthPollInterval: Duration = .milliseconds(20),
  _ body: (EntitlementsClient, HealthClient) async throws -> Result
) async throws -> Result {
  let transport = InProcessTransport()
  let services = GRPCDoor.services(
    handler: handler, gate: gate, shutdown: shutdown, healthPollInterval: healthPollInterval)
  let interceptor = CallerInterceptor(gate: gate, logger: Logger(label: "test.grpc"))
  return try await withGRPCServer(transport: transport.server, services: services, interceptors: [interceptor]) { _ in
    try await withGRPCClient(transport: transport.client) { client in
      try await body(EntitlementsClient(wrapping: client), HealthClient(wrapping: client))
    }
  }
}

/// The `RPCError` `call` failed with; fails the test when it succeeded.
func rpcError<T: Sendable>(_ call: () async throws -> T) async -> RPCError? {
  do {
    _ = try await call()
    return nil
  } catch let error as RPCError {
    return error
  } catch {
    return RPCError(code: .unknown, message: "not an RPCError: \(error)")
  }
}

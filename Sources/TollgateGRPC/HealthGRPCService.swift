import GRPCCore
import TollgateContract
import TollgateServer

/// The standard gRPC health service (`grpc.health.v1.Health`, proto/grpc/health/v1/health.proto),
/// for probes that cannot send a key (`CallerInterceptor` lets it through). The server as a
/// whole (`""`) and `tollgate.v1.Entitlements` are SERVING while the handler's Health says
/// SERVING or DEGRADED, and NOT_SERVING when it says NOT_SERVING or once the door shuts down.
/// `tollgate.v1.Entitlements/Health`, with the counts and feed positions, still needs a key.
struct HealthGRPCService: Grpc_Health_V1_Health.SimpleServiceProtocol {
  typealias Status = Grpc_Health_V1_HealthCheckResponse.ServingStatus

  let handler: any EntitlementsHandler
  let shutdown: DoorShutdown
  /// How often Watch asks the handler again.
  let pollInterval: Duration

  /// The services a request may name.
  static let services: Set<String> = ["", CallerInterceptor.entitlementsService]

  /// The status of `service` now, or nil for a service the door does not serve.
  func status(of service: String) -> Status? {
    guard Self.services.contains(service) else { return nil }
    guard !shutdown.isShuttingDown else { return .notServing }
    let health = handler.health(Tollgate_V1_HealthRequest())
    guard !health.hasError || health.error.code == .unspecified else { return .notServing }
    switch health.status {
    case .serving, .degraded: return .serving
    case .notServing, .unspecified, .UNRECOGNIZED: return .notServing
    }
  }

  func check(
    request: Grpc_Health_V1_HealthCheckRequest, context: ServerContext
  ) async throws -> Grpc_Health_V1_HealthCheckResponse {
    guard let status = status(of: request.service) else {
      throw RPCError(code: .notFound, message: "no service \"\(request.service.prefix(200))\" here")
    }
    return Self.response(status)
  }

  /// The status at once, then each change (looked at every `pollInterval`) until the client
  /// cancels; SERVICE_UNKNOWN for a service the door does not serve. When the door shuts down it
  /// sends NOT_SERVING and ends, so that the shutdown does not wait for watchers.
  func watch(
    request: Grpc_Health_V1_HealthCheckRequest, response: RPCWriter<Grpc_Health_V1_HealthCheckResponse>,
    context: ServerContext
  ) async throws {
    var sent: Status?
    while true {
      let status = status(of: request.service) ?? (shutdown.isShuttingDown ? .notServing : .serviceUnknown)
      if status != sent {
        try await response.write(Self.response(status))
        sent = status
      }
      if shutdown.isShuttingDown { return }
      try await shutdown.sleep(for: pollInterval)
    }
  }

  static func response(_ status: Status) -> Grpc_Health_V1_HealthCheckResponse {
    var response = Grpc_Health_V1_HealthCheckResponse()
    response.status = status
    return response
  }
}

/// Whether the door has begun its graceful shutdown, for the health service's answers and its
/// watchers' loops.
final class DoorShutdown: Sendable {
  private let began = OneShot<Void>()

  var isShuttingDown: Bool { began.value != nil }

  /// Marks the door as shutting down and wakes every `sleep`.
  func begin() {
    began.fire(())
  }

  /// Sleeps for `duration`, or less when the shutdown begins meanwhile; throws when cancelled.
  func sleep(for duration: Duration) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await Task.sleep(for: duration) }
      group.addTask { _ = await self.began.wait() }
      _ = try await group.next()
      group.cancelAll()
    }
  }
}

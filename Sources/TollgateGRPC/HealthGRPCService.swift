import GRPCCore
import TollgateContract
import TollgateCore
import TollgateHTTPListener
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
  /// The Watch calls running now.
  let watchers: HealthWatchers

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
      throw RPCError(code: .notFound, message: "no service \(StrangerText.loggable(request.service)) here")
    }
    return Self.response(status)
  }

  /// The status at once, then each change (looked at every `pollInterval`) until the call ends;
  /// SERVICE_UNKNOWN for a service the door does not serve. The call ends when the client leaves
  /// or its deadline passes: grpc-swift says so through `context.cancellation`, not by cancelling
  /// the task, so the loop waits on that too. When the door shuts down it sends NOT_SERVING and
  /// ends, so that the shutdown does not wait for watchers.
  func watch(
    request: Grpc_Health_V1_HealthCheckRequest, response: RPCWriter<Grpc_Health_V1_HealthCheckResponse>,
    context: ServerContext
  ) async throws {
    guard watchers.start() else {
      throw RPCError(
        code: .resourceExhausted,
        message: "\(watchers.maximum) health watchers already; ask Check, or Watch again later")
    }
    defer { watchers.ended() }
    var sent: Status?
    while !context.cancellation.isCancelled {
      let status = status(of: request.service) ?? (shutdown.isShuttingDown ? .notServing : .serviceUnknown)
      if status != sent {
        try await response.write(Self.response(status))
        sent = status
      }
      if shutdown.isShuttingDown { return }
      try await shutdown.sleep(for: pollInterval, unlessCancelled: context.cancellation)
    }
  }

  static func response(_ status: Status) -> Grpc_Health_V1_HealthCheckResponse {
    var response = Grpc_Health_V1_HealthCheckResponse()
    response.status = status
    return response
  }
}

/// The health Watch calls running, at most `maximum` at once: Watch needs no key, and each one
/// looks at the status every poll interval, so strangers may not open them without bound. Counted
/// by the listeners' slot counter (`ConnectionSlots`).
final class HealthWatchers: Sendable {
  private let slots: ConnectionSlots

  init(maximum: Int = 100) {
    slots = ConnectionSlots(capacity: maximum)
  }

  var maximum: Int { slots.capacity }
  var count: Int { slots.count }

  /// Counts one more watcher; false (nothing counted) when `maximum` are running.
  func start() -> Bool { slots.acquire() }

  func ended() { slots.release() }
}

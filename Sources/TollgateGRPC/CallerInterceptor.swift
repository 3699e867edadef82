import GRPCCore
import Logging
import TollgateCallers

/// Lets a call in only for a caller the gate knows, with the scope its method needs: reads
/// `authorization: Bearer <key>` from the call's metadata, asks `CallerGate.identify` (the source
/// from `context.remotePeer`, so failed keys cost the same budget as on the other doors) and
/// `CallerGate.authorize` for the method's `CallerOperation`, and throws the mapped `RPCError`
/// (`GRPCStatusMapping`) on refusal. It runs before the request's message is read, so a refused
/// call's message is never decoded. Let in, the rest of the call runs with `CallerContext.identity`.
///
/// `grpc.health.v1.Health` needs no key: probes (Kubernetes, load balancers) cannot send metadata
/// and the answer says only serving or not. Every other service or method is refused: a method
/// added to the proto without an operation here fails closed (`PERMISSION_DENIED`).
struct CallerInterceptor: ServerInterceptor {
  let gate: CallerGate
  let logger: Logger
  /// Told the peer (`context.remotePeer`) of each call let in that needed a caller: its connection
  /// has proved itself (`GRPCConnectionLimits.proven(peer:)`).
  var admitted: (@Sendable (_ peer: String) -> Void)? = nil

  /// The fully qualified names of the services the door serves.
  static let entitlementsService = "tollgate.v1.Entitlements"
  static let healthService = "grpc.health.v1.Health"

  /// What a call needs.
  enum Requirement: Equatable {
    /// No caller: grpc.health.v1.
    case nothing
    /// A known caller, whatever its scopes: Authenticate, which answers who the bearer is.
    case caller
    /// A known caller with the operation's scope.
    case operation(CallerOperation)
    /// Refused: nothing the door knows.
    case unknown
  }

  private static let operations = Dictionary(
    uniqueKeysWithValues: CallerOperation.allCases.map { ($0.methodName, $0) })

  static func requirement(service: String, method: String) -> Requirement {
    switch service {
    case healthService: return .nothing
    case entitlementsService:
      if method == "Authenticate" { return .caller }
      return operations[method].map { .operation($0) } ?? .unknown
    default: return .unknown
    }
  }

  func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingServerRequest<Input>,
    context: ServerContext,
    next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
  ) async throws -> StreamingServerResponse<Output> {
    let requirement = Self.requirement(
      service: context.descriptor.service.fullyQualifiedService, method: context.descriptor.method)
    if requirement == .nothing { return try await next(request, context) }
    let identity = try admit(
      requirement, authorization: Self.authorization(in: request.metadata), peer: context.remotePeer,
      method: context.descriptor.method)
    admitted?(context.remotePeer)
    return try await CallerContext.$identity.withValue(identity) { try await next(request, context) }
  }

  /// The call's first `authorization` value, if it sent one.
  static func authorization(in metadata: Metadata) -> String? {
    var values = metadata[stringValues: "authorization"].makeIterator()
    return values.next()
  }

  /// The caller `authorization` names if it may make a call with `requirement`; throws the
  /// refusal's `RPCError` otherwise.
  func admit(
    _ requirement: Requirement, authorization: String?, peer: String, method: String
  ) throws(RPCError) -> CallerIdentity {
    guard requirement != .unknown else {
      throw GRPCStatusMapping.rpcError(CallerRefusal(.permissionDenied(needs: .admin), "no caller may call \(method)"))
    }
    let source = PeerSource(grpcPeer: peer)
    let identity: CallerIdentity
    switch gate.identify(authorization: authorization, source: source) {
    case .success(let identified): identity = identified
    case .failure(let refusal):
      logger.debug(
        "gRPC call refused", metadata: ["source": "\(source)", "reason": "\(refusal.kind)", "method": "\(method)"])
      throw GRPCStatusMapping.rpcError(refusal)
    }
    if case .operation(let operation) = requirement, let refusal = gate.authorize(identity, for: operation) {
      logger.debug(
        "gRPC call refused", metadata: ["caller": "\(identity.name ?? "")", "reason": "scope", "method": "\(method)"])
      throw GRPCStatusMapping.rpcError(refusal)
    }
    return identity
  }
}

import GRPCCore
import TollgateContract
import TollgateServer

/// Records every call of `service Entitlements` the gRPC door answers (`DoorCallRecorder`, serve's
/// metrics): its method, how it ended (`ok`, or the error code its status carries: a refused key
/// is `unauthenticated`, an answer's error its code) and how long it took. It runs first, around
/// the caller check, so refused calls are counted too. grpc.health.v1 is not counted.
struct CallRecordingInterceptor: ServerInterceptor {
  let recorder: DoorCallRecorder

  private static let methods = Dictionary(uniqueKeysWithValues: EntitlementsMethod.allCases.map { ($0.name, $0) })

  func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingServerRequest<Input>,
    context: ServerContext,
    next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
  ) async throws -> StreamingServerResponse<Output> {
    guard context.descriptor.service.fullyQualifiedService == CallerInterceptor.entitlementsService else {
      return try await next(request, context)
    }
    let method = Self.methods[context.descriptor.method]
    let start = DoorCallRecorder.now()
    do {
      let response = try await next(request, context)
      // A unary method's handler has run by now: its error, if any, is in the response.
      switch response.accepted {
      case .success: recorder.record(method, outcome: .ok, since: start)
      case .failure(let error): recorder.record(method, outcome: Self.outcome(error.code), since: start)
      }
      return response
    } catch let error as RPCError {
      recorder.record(method, outcome: Self.outcome(error.code), since: start)
      throw error
    } catch {
      recorder.record(method, outcome: .failed, since: start)
      throw error
    }
  }

  /// The outcome of a status code (`GRPCStatusMapping`'s table read backwards).
  static func outcome(_ code: RPCError.Code) -> CallOutcome {
    switch code {
    case .invalidArgument: .invalidArgument
    case .notFound: .notFound
    case .unauthenticated: .unauthenticated
    case .permissionDenied: .permissionDenied
    case .resourceExhausted: .resourceExhausted
    case .unavailable: .unavailable
    case .deadlineExceeded: .deadlineExceeded
    case .internalError, .unknown: .internal
    default: .failed
    }
  }
}

import Hummingbird
import TollgateContract
import TollgateServer

/// Records every call of one route (`DoorCallRecorder`, serve's metrics): its method, how it
/// ended (`ok` for a 2xx, else the error code its status stands for in the one table of
/// docs/protocol.md: 401 `unauthenticated`, 429 `resource_exhausted`, …) and how long it took.
/// It runs before the caller check, so refused calls are counted too.
struct CallRecordingMiddleware: RouterMiddleware {
  typealias Context = DoorRequestContext

  let recorder: DoorCallRecorder
  let method: EntitlementsMethod

  func handle(
    _ request: Request, context: DoorRequestContext, next: (Request, DoorRequestContext) async throws -> Response
  ) async throws -> Response {
    let start = DoorCallRecorder.now()
    do {
      let response = try await next(request, context)
      recorder.record(method, outcome: Self.outcome(response.status), since: start)
      return response
    } catch let error as any HTTPResponseError {
      recorder.record(method, outcome: Self.outcome(error.status), since: start)
      throw error
    } catch {
      recorder.record(method, outcome: .internal, since: start)
      throw error
    }
  }

  static func outcome(_ status: HTTPResponse.Status) -> CallOutcome {
    switch status.code {
    case 200..<300: .ok
    case 400, 413, 415, 422: .invalidArgument
    case 401: .unauthenticated
    case 403: .permissionDenied
    case 404: .notFound
    case 429: .resourceExhausted
    case 503: .unavailable
    case 504: .deadlineExceeded
    case 500: .internal
    default: .failed
    }
  }

  /// The method a route answers; nil for `/healthz`, which is not counted.
  static func method(of endpoint: HTTPRoute.Endpoint) -> EntitlementsMethod? {
    switch endpoint {
    case .isSubscriber: .isSubscriber
    case .getSubscription: .getSubscription
    case .submitPurchase: .submitPurchase
    case .getSubmission: .getSubmission
    case .health: .health
    case .healthz: nil
    case .lookUp: .lookUp
    case .getTimeline: .getTimeline
    case .explain: .explain
    case .grant: .grant
    case .revoke: .revoke
    case .reverify: .reverify
    case .eraseUser: .eraseUser
    }
  }
}

import Hummingbird
import Logging
import TollgateCallers
import TollgateServer

/// One route of the HTTP door: its method, its path (OpenAPI's template syntax, which Hummingbird
/// reads too) and the caller operation whose scope it needs (nil: no caller key, `/healthz`).
public struct HTTPRoute: Sendable, Hashable {
  /// What answers it; also its `operationId` in docs/api/openapi.yaml.
  public enum Endpoint: String, Sendable, Hashable, CaseIterable {
    case isSubscriber, getSubscription, submitPurchase, getSubmission, health, healthz
    case lookUp, getTimeline, explain, grant, revoke, reverify, eraseUser
  }

  public var endpoint: Endpoint
  public var method: HTTPRequest.Method
  public var path: String
  public var operation: CallerOperation?

  /// The scope a caller needs (`read`, `submit`, `admin`), or nil for none: OpenAPI's
  /// `x-tollgate-scope`.
  public var scope: String? { operation.map { $0.requiredScope.names.joined(separator: ",") } }
}

/// The door's routes: the one table that registers them (`register`), that `tollgate http-routes
/// --json` prints and that the OpenAPI test compares with docs/api/openapi.yaml.
public enum HTTPRoutes {
  public static let all: [HTTPRoute] = [
    HTTPRoute(
      endpoint: .isSubscriber, method: .get, path: "/v1/users/{userId}/entitlements/{entitlement}",
      operation: .isSubscriber),
    HTTPRoute(endpoint: .getSubscription, method: .get, path: "/v1/users/{userId}", operation: .getSubscription),
    HTTPRoute(endpoint: .submitPurchase, method: .post, path: "/v1/purchases", operation: .submitPurchase),
    HTTPRoute(
      endpoint: .getSubmission, method: .get, path: "/v1/submissions/{submissionId}", operation: .getSubmission),
    HTTPRoute(endpoint: .health, method: .get, path: "/v1/health", operation: .health),
    HTTPRoute(endpoint: .healthz, method: .get, path: "/healthz", operation: nil),
    // Support and admin (scope admin).
    HTTPRoute(endpoint: .lookUp, method: .get, path: "/v1/lookup", operation: .lookUp),
    HTTPRoute(endpoint: .getTimeline, method: .get, path: "/v1/users/{userId}/timeline", operation: .getTimeline),
    HTTPRoute(
      endpoint: .explain, method: .get, path: "/v1/users/{userId}/entitlements/{entitlement}/explain",
      operation: .explain),
    HTTPRoute(endpoint: .grant, method: .post, path: "/v1/users/{userId}/grants", operation: .grant),
    HTTPRoute(
      endpoint: .revoke, method: .delete, path: "/v1/users/{userId}/grants/{entitlement}", operation: .revoke),
    HTTPRoute(endpoint: .reverify, method: .post, path: "/v1/users/{userId}/reverify", operation: .reverify),
    HTTPRoute(endpoint: .eraseUser, method: .delete, path: "/v1/users/{userId}", operation: .eraseUser),
  ]

  /// The table as JSON, one object per route: `method`, `path`, `operationId`, `scope` (null for
  /// none). Sorted by path, then method.
  public static var json: String {
    let rows = all.sorted { ($0.path, $0.method.rawValue) < ($1.path, $1.method.rawValue) }.map { route in
      let scope = route.scope.map { "\"\($0)\"" } ?? "null"
      return #"  {"method": "\#(route.method.rawValue)", "path": "\#(route.path)", "#
        + #""operationId": "\#(route.endpoint.rawValue)", "scope": \#(scope)}"#
    }
    return "[\n" + rows.joined(separator: ",\n") + "\n]\n"
  }

  /// Adds every route of `all` to `router`, each behind a `CallerMiddleware` for its operation
  /// (the caller is checked before its body is read), and answers each with `routes`.
  static func register(on router: Router<DoorRequestContext>, routes: DoorRoutes) {
    router.add(middleware: ProblemMiddleware(logger: routes.logger))
    for route in all {
      let group = router.group()
      if let recorder = routes.calls, let method = CallRecordingMiddleware.method(of: route.endpoint) {
        group.add(middleware: CallRecordingMiddleware(recorder: recorder, method: method))
      }
      if let operation = route.operation {
        group.add(middleware: CallerMiddleware(gate: routes.gate, operation: operation, logger: routes.logger))
      }
      let endpoint = route.endpoint
      group.on(RouterPath(route.path), method: route.method) { request, context -> Response in
        try await routes.respond(endpoint, request, context)
      }
    }
  }
}

/// Turns whatever a route or Hummingbird throws into a problem document: the door never answers
/// an error without one.
struct ProblemMiddleware: RouterMiddleware {
  typealias Context = DoorRequestContext
  let logger: Logger

  func handle(
    _ request: Request, context: DoorRequestContext, next: (Request, DoorRequestContext) async throws -> Response
  ) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let problem as ProblemDocument {
      return problem.response
    } catch let error as HTTPError {
      return ProblemDocument.http(error.status).response
    } catch let error as any HTTPResponseError {
      return ProblemDocument.http(error.status).response
    } catch {
      logger.error("http door: an unexpected error answered 500", metadata: ["error": "\(type(of: error))"])
      return ProblemDocument.internalError.response
    }
  }
}

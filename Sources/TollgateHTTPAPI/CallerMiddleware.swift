import Hummingbird
import Logging
import TollgateCallers
import TollgateHTTPListener

/// Lets a request through to its route only for a caller the gate knows and whose scopes allow
/// the route's operation (`HTTPRoute.operation`, the one scope table `CallerOperation`). It runs
/// before the route's handler, so a refused request's body is never read: a stranger's upload is
/// answered 401 (or 403, or 429 when its source is out of failed authentications) from its head
/// alone, with `Connection: close` when a body follows, so the rest of it is not read either.
struct CallerMiddleware: RouterMiddleware {
  typealias Context = DoorRequestContext

  let gate: CallerGate
  let operation: CallerOperation
  let logger: Logger

  func handle(
    _ request: Request, context: DoorRequestContext, next: (Request, DoorRequestContext) async throws -> Response
  ) async throws -> Response {
    let identified = gate.identify(authorization: request.headers[.authorization], source: context.source)
    let refusal: CallerRefusal
    switch identified {
    case .success(let identity):
      guard let denied = gate.authorize(identity, for: operation) else {
        // The connection proved a caller: the guard's unproven deadline no longer applies.
        context.channel.pipeline.fireUserInboundEventTriggered(HTTPConnectionProven())
        var context = context
        context.caller = identity
        return try await next(request, context)
      }
      refusal = denied
    case .failure(let failure):
      refusal = failure
    }
    // The refusal's message names a configured caller at most; the source is an address.
    logger.debug(
      "http call refused",
      metadata: ["operation": "\(operation.rawValue)", "source": "\(context.source)", "reason": "\(refusal)"])
    var response = ProblemDocument(refusal).response
    if Self.hasBody(request) { response.headers[.connection] = "close" }
    return response
  }

  /// Whether a body follows the head (a length above 0, or chunked).
  static func hasBody(_ request: Request) -> Bool {
    if let length = request.headers[.contentLength] { return length != "0" }
    return request.headers[.transferEncoding] != nil
  }
}

import HTTPTypes
import Hummingbird
import TollgateCore

/// The request id of every request (`TollgateCore.RequestID`; Hummingbird has a `RequestID` of its own): its `x-request-id` header when it is sane,
/// else a new one. It runs first, on every route: the handlers read it
/// (`DoorRequestContext.requestId`; a SubmitPurchase stores it with its inbox item), and every
/// response carries it back as `x-request-id`, problem documents (a refused key included) too.
struct RequestIDMiddleware: RouterMiddleware {
  typealias Context = DoorRequestContext

  static let header = HTTPField.Name(TollgateCore.RequestID.header)!

  func handle(
    _ request: Request, context: DoorRequestContext, next: (Request, DoorRequestContext) async throws -> Response
  ) async throws -> Response {
    let requestId = TollgateCore.RequestID.taken(from: request.headers[Self.header])
    var context = context
    context.requestId = requestId
    var response: Response
    do {
      response = try await next(request, context)
    } catch let error as any HTTPResponseError {
      response = try error.response(from: request, context: context)
    }
    response.headers[Self.header] = requestId.value
    return response
  }
}

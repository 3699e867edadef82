import GRPCCore
import TollgateCore

/// The request id of every call (`RequestID`): the call's `x-request-id` metadata when it is
/// sane, else a new one. It runs first, around every other interceptor: the methods read it
/// (`RequestIDContext.current`; a SubmitPurchase stores it with its inbox item), and the response
/// carries it back as `x-request-id`, in its initial metadata, or in the status's metadata when
/// the call failed (a refused key included).
struct RequestIDInterceptor: ServerInterceptor {
  func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingServerRequest<Input>,
    context: ServerContext,
    next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
  ) async throws -> StreamingServerResponse<Output> {
    var values = request.metadata[stringValues: RequestID.header].makeIterator()
    let requestId = RequestID.taken(from: values.next())
    do {
      var response = try await RequestIDContext.$current.withValue(requestId) { try await next(request, context) }
      response.metadata.addString(requestId.value, forKey: RequestID.header)
      return response
    } catch var error as RPCError {
      error.metadata.addString(requestId.value, forKey: RequestID.header)
      throw error
    }
  }
}

/// The request id of the gRPC call being handled (`RequestIDInterceptor` sets it around the
/// call, as `CallerContext` holds its caller); nil outside a call.
enum RequestIDContext {
  @TaskLocal static var current: RequestID?
}

import Hummingbird
import Logging

/// Answers 503 to every POST (a store's notification) while the storage reports a problem (its
/// database file was deleted or replaced after it was opened): the store sends the notification
/// again later, instead of the worker acknowledging it into a file nobody will read again.
struct StorageGuardMiddleware<Context: RequestContext>: RouterMiddleware {
  let storage: any WorkerStorage
  let logger: Logger

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard request.method == .post, let problem = await storage.storageProblem() else {
      return try await next(request, context)
    }
    logger.error("a notification was refused (503): the database cannot be trusted", metadata: ["reason": "\(problem)"])
    return Response(status: .serviceUnavailable, headers: [.retryAfter: "60"])
  }
}

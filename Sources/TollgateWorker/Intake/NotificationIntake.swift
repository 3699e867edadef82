import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The HTTP endpoints the stores post notifications to, one per route their gateways declare. A
/// notification is stored durably, and answered 200 only then; a duplicate (same key) is
/// acknowledged but stored once. Verification happens when the worker processes it: nothing
/// here trusts the body.
enum NotificationIntake {
  static let maximumBodyBytes = 1 << 20

  static func add(
    to router: Router<BasicRequestContext>, routes: [NotificationRoute], storage: any WorkerStorage,
    nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) {
    for route in routes {
      router.post(RouterPath(route.path)) { request, _ -> Response in
        var request = request
        guard let body = try? await request.collectBody(upTo: maximumBodyBytes) else {
          return Response(status: .contentTooLarge)
        }
        let bytes = Array(body.readableBytesView)
        guard let key = route.dedupeKey(bytes) else { return Response(status: .badRequest) }
        return await store(
          route: route.name, key: "\(route.name):\(key)", bytes: bytes, storage: storage, nowMs: nowMs, logger: logger)
      }
    }
  }

  private static func store(
    route: String, key: String, bytes: [UInt8], storage: any WorkerStorage, nowMs: @Sendable () -> Int64, logger: Logger
  ) async -> Response {
    do {
      let (id, duplicate) = try await storage.storeNotification(
        route: route, dedupeKey: key, payload: bytes, nowMs: nowMs())
      logger.info(
        "notification stored",
        metadata: ["inbox.id": "\(id)", "notification.route": "\(route)", "notification.duplicate": "\(duplicate)"])
      return Response(status: .ok)
    } catch {
      // Not stored: the store must send it again.
      logger.error("storing a notification failed", metadata: ["error": "\(error)"])
      return Response(status: .internalServerError)
    }
  }
}

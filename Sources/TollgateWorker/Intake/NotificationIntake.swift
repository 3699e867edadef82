import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import TollgateCore

/// The HTTP endpoints the stores post notifications to, one per route their gateways declare.
/// Each request is first put to its route (`NotificationRoute.admit`: a route that can
/// authenticate the sender does so here, before anything is stored); an admitted notification is
/// stored durably and answered 200 only then; a duplicate (same key) is acknowledged but stored
/// once. What the body says is verified when the worker processes it. A body larger than
/// `maximumBodyBytes` (`worker.maxNotificationBytes`, or the route's own smaller
/// `NotificationRoute.maximumBodyBytes`) is refused with 413: at once when its
/// Content-Length says so, else as soon as that much has arrived; the connection is then closed
/// (`HTTPConnectionGuard`), so the rest is never read.
///
/// A stored notification gets a request id (`RequestID`: the request's `x-request-id` when it
/// is sane, else a new one), stored with its inbox item, logged as `request_id` and echoed in
/// the response's `x-request-id`.
enum NotificationIntake {
  static func add(
    to router: Router<BasicRequestContext>, routes: [NotificationRoute], maximumBodyBytes: Int,
    storage: any WorkerStorage, stats: WorkerStats, nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) {
    // Every refusal is counted; only a few per route and minute are logged.
    let sampler = LogSampler()
    for route in routes {
      let maximumBodyBytes = min(route.maximumBodyBytes ?? maximumBodyBytes, maximumBodyBytes)
      router.post(RouterPath(route.path)) { request, _ -> Response in
        var request = request
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        guard declared.map({ $0 <= maximumBodyBytes }) ?? true,
          let body = try? await request.collectBody(upTo: maximumBodyBytes)
        else {
          stats.notificationNotStored(route: route.name, outcome: "too_large")
          return Response(status: .contentTooLarge)
        }
        let bytes = Array(body.readableBytesView)
        let admission = await route.admit(
          NotificationRequest(body: bytes, authorization: request.headers[.authorization]))
        switch admission {
        case .store(let key):
          let requestId = TollgateCore.RequestID.taken(from: request.headers[Self.requestIdHeader])
          return await store(
            route: route.name, key: "\(route.name):\(key)", bytes: bytes, requestId: requestId, storage: storage,
            nowMs: nowMs, logger: logger)
        case .acknowledge(let reason):
          stats.notificationNotStored(route: route.name, outcome: "acknowledged")
          let sample = sampler.admit("\(route.name) acknowledged", nowMs: nowMs())
          if sample.log {
            logger.warning(
              "notification acknowledged, not stored",
              metadata: [
                "notification.route": "\(route.name)", "reason": "\(reason)", "body.bytes": "\(bytes.count)",
                "log.skipped_before": "\(sample.skippedBefore)",
              ])
          }
          return Response(status: .ok)
        case .refuse(let status, let reason):
          stats.notificationNotStored(route: route.name, outcome: "refused")
          let sample = sampler.admit("\(route.name) refused", nowMs: nowMs())
          if sample.log {
            // The reason and the size, never the body: it may hold a forger's payload or a secret.
            logger.warning(
              "notification refused",
              metadata: [
                "notification.route": "\(route.name)", "http.status": "\(status)", "reason": "\(reason)",
                "body.bytes": "\(bytes.count)", "log.skipped_before": "\(sample.skippedBefore)",
              ])
          }
          return Response(status: HTTPResponse.Status(code: status))
        }
      }
    }
  }

  static let requestIdHeader = HTTPField.Name(TollgateCore.RequestID.header)!

  private static func store(
    route: String, key: String, bytes: [UInt8], requestId: TollgateCore.RequestID, storage: any WorkerStorage,
    nowMs: @Sendable () -> Int64, logger: Logger
  ) async -> Response {
    let echoed: HTTPFields = [requestIdHeader: requestId.value]
    do {
      let (id, duplicate) = try await storage.storeNotification(
        route: route, dedupeKey: key, payload: bytes, requestId: requestId.value, nowMs: nowMs())
      logger.info(
        "notification stored",
        metadata: [
          "inbox.id": "\(id)", "notification.route": "\(route)", "notification.duplicate": "\(duplicate)",
          "request_id": "\(requestId)",
        ])
      return Response(status: .ok, headers: echoed)
    } catch {
      // Not stored: the store must send it again.
      logger.error("storing a notification failed", metadata: ["error": "\(error)", "request_id": "\(requestId)"])
      return Response(status: .internalServerError, headers: echoed)
    }
  }
}

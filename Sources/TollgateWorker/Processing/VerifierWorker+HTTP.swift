import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import TollgateHTTPListener

/// The worker's two HTTP listeners: the public one (`worker.listen`) serves the stores'
/// notification routes and nothing else; the admin one (`worker.adminListen`, loopback by
/// default) serves `/health`, `/livez`, `/readyz` (`VerifierWorker+Probes.swift`) and `/metrics`. Both close idle connections (`worker.idleTimeoutMs`),
/// connections whose request head or whole request is not complete in time
/// (`worker.headerTimeoutMs`, `worker.requestTimeoutMs`) or whose body trickles
/// (`worker.minBodyBytesPerSecond`), and connections beyond their cap (`worker.maxConnections`,
/// `worker.adminMaxConnections`): `HTTPListener` (module `TollgateHTTPListener`).
extension VerifierWorker {
  func makeListeners() -> (
    notifications: Application<RouterResponder<BasicRequestContext>>,
    admin: Application<RouterResponder<BasicRequestContext>>
  ) {
    let router = Router()
    router.add(middleware: StorageGuardMiddleware(storage: storage, logger: logger))
    NotificationIntake.add(
      to: router, routes: gateways.notificationRoutes, maximumBodyBytes: settings.maxNotificationBytes,
      storage: storage, stats: stats, nowMs: nowMs, logger: logger)

    let adminRouter = Router()
    adminRouter.get("/health") { _, _ -> Response in await self.health() }
    adminRouter.get("/livez") { _, _ -> Response in self.livez() }
    adminRouter.get("/readyz") { _, _ -> Response in await self.readyz() }
    if metricsText != nil {
      adminRouter.get("/metrics") { _, _ -> Response in
        Response(
          status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
          body: .init(byteBuffer: ByteBuffer(string: await self.scrapeMetrics() ?? "")))
      }
    }
    let limits = HTTPListenerLimits(
      listener: "listen", settings: settings, maxConnections: settings.maxConnections, stats: stats)
    let adminLimits = HTTPListenerLimits(
      listener: "adminListen", settings: settings, maxConnections: settings.adminMaxConnections, stats: stats)
    let idleTimeout = TimeAmount.milliseconds(settings.idleTimeoutMs)
    return (
      HTTPListener.application(
        router: router, address: listen, limits: limits, idleTimeout: idleTimeout, bound: boundPort, logger: logger),
      HTTPListener.application(
        router: adminRouter, address: adminListen, limits: adminLimits, idleTimeout: idleTimeout,
        bound: adminBoundPort, logger: logger)
    )
  }

  /// `GET /health`: serving, degraded (a store is unreachable, purchases near Google's
  /// acknowledgement deadline) or not serving (the database cannot be trusted), with the inbox
  /// counts and what was processed.
  func health() async -> Response {
    let counts = (try? await storage.inboxCounts()) ?? [:]
    let problem = await storage.storageProblem()
    var health: [String: Any] = ["status": "serving", "inbox": counts, "processed": stats.json]
    let outages = storeHealth.outages
    if !outages.isEmpty {
      // Reading from a store is failing: renewing subscribers are kept in by the outage policy.
      let since = outages.map { "\($0.key.rawValue) since \($0.value)" }.sorted().joined(separator: ", ")
      health.merge(
        [
          "status": "degraded", "reason": "store_unreachable: \(since)",
          "storeOutages": Dictionary(uniqueKeysWithValues: outages.map { ($0.key.rawValue, $0.value) }),
        ]
      ) { $1 }
    }
    let acknowledgements = acknowledgements.counts(nowMs: nowMs())
    if acknowledgements.pending > 0 {
      health["unacknowledged"] = ["pending": acknowledgements.pending, "nearDeadline": acknowledgements.urgent]
    }
    if acknowledgements.urgent > 0 && health["reason"] == nil {
      // Google refunds a purchase left unacknowledged for 3 days: money about to be lost.
      health.merge(
        [
          "status": "degraded",
          "reason": "unacknowledged_purchases: \(acknowledgements.urgent) within a day of the store's deadline",
        ]
      ) { $1 }
    }
    if !webhooks.endpoints.isEmpty { health["webhooks"] = await webhooks.health() }
    // Alone on the database (the worker lease) or sharing it, and which singleton jobs run here.
    health["leases"] = ["exclusive": settings.exclusive, "jobs": jobs.heldNames]
    if let problem { health.merge(["status": "not_serving", "reason": problem]) { $1 } }
    return ProbeJSON.response(health, status: problem == nil ? .ok : .serviceUnavailable)
  }
}

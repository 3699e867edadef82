import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore

/// The worker's two HTTP listeners: the public one (`worker.listen`) serves the stores'
/// notification routes and nothing else; the admin one (`worker.adminListen`, loopback by
/// default) serves `/health` and `/metrics`. Both close idle connections (`worker.idleTimeoutMs`),
/// connections whose request head or whole request is not complete in time
/// (`worker.headerTimeoutMs`, `worker.requestTimeoutMs`) or whose body trickles
/// (`worker.minBodyBytesPerSecond`), and connections beyond their cap (`worker.maxConnections`,
/// `worker.adminMaxConnections`): `HTTPConnectionGuard`.
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
    if let render = metricsText {
      adminRouter.get("/metrics") { _, _ -> Response in
        Response(
          status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
          body: .init(byteBuffer: ByteBuffer(string: render())))
      }
    }
    let limits = HTTPListenerLimits(
      listener: "listen", settings: settings, maxConnections: settings.maxConnections, stats: stats)
    let adminLimits = HTTPListenerLimits(
      listener: "adminListen", settings: settings, maxConnections: settings.adminMaxConnections, stats: stats)
    return (
      application(router, address: listen, limits: limits, bound: boundPort),
      application(adminRouter, address: adminListen, limits: adminLimits, bound: adminBoundPort)
    )
  }

  private func application(
    _ router: Router<BasicRequestContext>, address: ListenAddress, limits: HTTPListenerLimits, bound: BoundPort
  ) -> Application<RouterResponder<BasicRequestContext>> {
    let http = HTTP1Channel.Configuration(
      additionalChannelHandlers: [HTTPConnectionGuard(limits: limits)],
      idleTimeout: .milliseconds(settings.idleTimeoutMs))
    return Application(
      router: router, server: .http1(configuration: http),
      configuration: .init(address: .hostname(address.host, port: address.port)),
      onServerRunning: { channel in await bound.set(channel.localAddress?.port ?? 0) }, logger: logger)
  }

  /// Runs one listener; a failure before it listens (the address is taken, the host does not
  /// resolve) is an error naming the config key and the address.
  static func run(
    _ application: Application<RouterResponder<BasicRequestContext>>, key: String, address: ListenAddress,
    bound: BoundPort
  ) async throws {
    do {
      try await application.run()
    } catch {
      guard await bound.isSet else {
        await bound.set(0)  // whoever waits for the port learns it will not come
        throw HTTPListenerError(key: key, address: address, cause: error)
      }
      throw error
    }
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
    let body = (try? JSONSerialization.data(withJSONObject: health, options: [.sortedKeys])) ?? Data()
    return Response(
      status: problem == nil ? .ok : .serviceUnavailable, headers: [.contentType: "application/json"],
      body: .init(byteBuffer: ByteBuffer(bytes: body)))
  }
}

/// A worker listener could not start: which key, which address, and why.
public struct HTTPListenerError: Error, CustomStringConvertible {
  public var key: String
  public var address: ListenAddress
  public var cause: any Error

  public var description: String { "\(key) (\(address)): cannot listen: \(cause)" }
}

import ArgumentParser
import TollgateHTTPListener
import TollgateServeMetrics
import TollgateServer
import TollgateService

/// `serve`'s admin listener (`service.adminListen`, `--admin-listen`; off unless set): metrics,
/// liveness, readiness and health for operators (`ServeAdminListener`). It runs with the doors, in
/// their gracefully-stopped group, and comes last in the listening line (`… and admin:HOST:PORT`).
enum ServeAdminListen {
  /// The flag wins over the file; each is checked as a config address. Nil: no admin listener.
  static func address(flag: String?, settings: ServeSettings) throws -> ListenAddress? {
    if let flag {
      guard let address = ListenAddress(flag) else {
        throw ValidationError("--admin-listen must be HOST:PORT (port 0 to 65535; an IPv6 host in brackets)")
      }
      return address
    }
    guard let setting = settings.adminListen else { return nil }
    do {
      return try ListenAddress.parse(setting, key: "service.adminListen")
    } catch {
      throw ValidationError("config: \(error)")
    }
  }

  /// `doors` with the admin listener on `address` after them, reading `server` and every door's
  /// recorder at each scrape.
  static func adding(
    to doors: ServeDoors, address: ListenAddress, server: EntitlementServer, nowMs: @escaping @Sendable () -> Int64
  ) -> ServeDoors {
    let metrics = ServeMetrics(server: server, doors: doors.doors.compactMap(\.metrics), nowMs: nowMs)
    let responder = server.responder
    let listener = ServeAdminListener(
      config: .init(address: address), metrics: metrics,
      health: { ServeHealthJSON.render(responder.health(.init())) }, logger: doors.logger)
    let admin = ServeDoors.Door(
      name: "admin", address: address, service: listener, boundPort: { await listener.boundPort() })
    return ServeDoors(doors: doors.doors + [admin], logger: doors.logger)
  }
}

import Logging
import TollgateCallers
import TollgateConsole
import TollgateHTTPAPI
import TollgateService

/// The support console (issue 29) on serve's HTTP door: `/console`, mounted outside the door's
/// bearer-key check (the console signs operators in with an admin caller key through the same
/// gate and keeps sessions). Its writes go through the admin calls every door answers (the
/// server's, answered once this replica's index has them); its pages read the admin side's
/// support desk (`ServeAdmin`).
enum ServeConsole {
  /// The console's mount, or none when serve serves no admin calls (`--no-admin`) or no console
  /// (`--no-console`).
  static func mounts(gate: CallerGate, server: EntitlementServer, admin: ServeAdmin?, enabled: Bool, logger: Logger)
    -> [DoorMount]
  {
    guard enabled, let admin else { return [] }
    let console = SupportConsole(
      gate: gate, backend: ConsoleBackend(admin: { server.responder.admin }, desk: { admin.desk }),
      logger: logger)
    return [mount(console)]
  }

  /// `console` as the door's mount under `/console`.
  static func mount(_ console: SupportConsole) -> DoorMount {
    DoorMount(prefix: SupportConsole.pathPrefix) { request, context in
      await console.respond(
        to: request, connection: ConsoleConnection(source: context.source, isTLS: context.isTLS, proven: context.proven)
      )
    }
  }
}

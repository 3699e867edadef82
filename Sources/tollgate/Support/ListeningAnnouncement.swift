import Foundation
import ServiceLifecycle

/// `serve`'s one listening line, written unbuffered to standard output once everything listens:
///
/// ```
/// tollgate serve: listening on 127.0.0.1:7701 and tls:0.0.0.0:7702 and grpc:127.0.0.1:7705 and http:127.0.0.1:7706 and admin:127.0.0.1:7707, database /var/lib/tollgate/tollgate.sqlite
/// ```
/// Scripts and tests wait for it to learn the ports; the first address is the fast port's (what
/// the existing parsers read), the doors' come after it with their prefixes, and the admin
/// listener's (`service.adminListen`) last. The database as
/// `StorageLocation` describes it: a path, or a PostgreSQL URL (never with a password).
struct ListeningAnnouncement: Service {
  /// The fast port's listeners, already bound (`tls:` before a TLS one).
  let listeners: [String]
  let doors: ServeDoors
  let database: String

  /// Waits for the doors to listen, then writes the line; writes nothing when a door could not
  /// listen (its error stops serve) or serve shuts down first.
  func run() async throws {
    try? await cancelWhenGracefulShutdown {
      guard let doorAddresses = try await doors.boundAddresses() else { return }
      Self.write(listeners: listeners + doorAddresses, database: database)
    }
  }

  static func line(listeners: [String], database: String) -> String {
    "tollgate serve: listening on \(listeners.joined(separator: " and ")), database \(database)\n"
  }

  static func write(listeners: [String], database: String) {
    FileHandle.standardOutput.write(Data(line(listeners: listeners, database: database).utf8))
  }
}

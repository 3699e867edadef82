import Foundation
import TollgateCallers
import TollgateHTTPListener
import TollgateServer

extension ServeSettings {
  /// The `service` section of the file at `path`, checked as `serve` starts: every problem at
  /// once (reading, unknown keys, values, callers, TLS files) as `ConfigProblems` (exit 78).
  static func checked(path: String) throws(ConfigProblems) -> ServeSettings {
    let (settings, keyProblems) = try load(path: path)
    try ConfigProblems.check(keyProblems + settings.allProblems(), path: path)
    return settings
  }

  /// Every problem of the section's values, each naming its key: the limits and addresses, the
  /// doors, the callers (inline or their file) and the TLS files (each read and parsed, as
  /// `serve` would at start).
  func allProblems() -> [String] {
    problems() + doorProblems() + callerProblems() + tlsProblems()
  }

  /// Why `service.callers` or the file `service.callersFile` names cannot be used, if it cannot.
  func callerProblems() -> [String] {
    do throws(CallerList.Problem) {
      if let path = callersFile {
        _ = try CallersFileWatcher.load(path: path)
      } else if let entries = callers {
        _ = try CallerList.keys(entries, source: "service.callers")
      }
      return []
    } catch {
      return ["\(error)"]
    }
  }

  /// Why a TLS listener's files (`service.tls`, `service.http.tls`, `service.grpc.tls`) cannot
  /// be used: missing, unreadable, no PEM in them, a key that does not match its certificate.
  func tlsProblems() -> [String] {
    var problems: [String] = []
    if let tls, !tls.certificateFile.isEmpty, !tls.privateKeyFile.isEmpty {
      do throws(TLSSetupError) {
        _ = try TLSServerContext(
          certificateFile: tls.certificateFile, privateKeyFile: tls.privateKeyFile, clientCAFile: tls.clientCAFile)
      } catch {
        problems.append("service.tls: \(error)")
      }
    }
    // A door's empty file names are already a problem of `doorProblems()`.
    for (key, door) in [("service.http.tls", http?.tls), ("service.grpc.tls", grpc?.tls)] {
      guard let door, door.problem(key: key) == nil else { continue }
      do throws(DoorTLSError) {
        try door.check(key: key)
      } catch {
        problems.append("\(error)")
      }
    }
    return problems
  }
}

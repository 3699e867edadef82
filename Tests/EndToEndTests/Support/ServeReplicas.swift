import Foundation
import Testing
import TollgateTesting

#if canImport(Glibc)
  import Glibc
#endif

/// A `tollgate serve` process, one replica of several on one SQLite database, on a loopback port.
struct ServeReplica {
  let process: ChildProcess
  let port: Int
  var address: String { "127.0.0.1:\(port)" }

  /// Starts `serve` on `database` (created when `create`) at `port` (0: any free one) and waits
  /// until it listens.
  static func start(database: String, port: Int = 0, create: Bool = false) async throws -> ServeReplica {
    let process = try ChildProcess(
      ["serve", "--listen", "127.0.0.1:\(port)", "--database", database, "--log-level", "warning"]
        + (create ? ["--create"] : []))
    guard let line = await process.waitForLine(containing: "listening on"),
      let address = line.split(separator: " ").first(where: { $0.hasPrefix("127.0.0.1:") }),
      let listening = Int(address.split(separator: ":")[1].trimmingCharacters(in: [","]))
    else {
      process.terminate()
      throw ReplicaDidNotStart(stderr: process.finish().stderr)
    }
    return ServeReplica(process: process, port: listening)
  }

  /// Kills the process with SIGKILL (no graceful shutdown: its connections are reset by the
  /// kernel) and waits until it is gone.
  func kill() async {
    _ = Glibc.kill(process.process.processIdentifier, SIGKILL)
    let spawned = process.process
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        spawned.waitUntilExit()
        continuation.resume()
      }
    }
  }

  /// Stops it with SIGTERM and waits.
  func stop() async {
    process.terminate()
    let spawned = process.process
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        spawned.waitUntilExit()
        continuation.resume()
      }
    }
  }

  /// Open TCP connections the replica has accepted, as the kernel lists them: established
  /// sockets whose local port is the replica's (`/proc/net/tcp`). The client's side of each
  /// connection has the port as its remote port and is not counted.
  var acceptedConnections: Int { Self.establishedConnections(localPort: port) }

  static func establishedConnections(localPort: Int) -> Int {
    var count = 0
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
      for line in readProcFile(table).split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ")
        // sl local_address rem_address st …; an address is HEXIP:HEXPORT, st 01 is ESTABLISHED.
        guard fields.count > 3, fields[3] == "01", let local = fields[1].split(separator: ":").last,
          Int(local, radix: 16) == localPort
        else { continue }
        count += 1
      }
    }
    return count
  }
}

/// A file of /proc read to its end with read(2): its size says 0, and a reader that trusts the
/// size (or reads one page) misses the rows past the first page.
private func readProcFile(_ path: String) -> String {
  let fd = open(path, O_RDONLY)
  guard fd >= 0 else { return "" }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65_536)
  while true {
    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if count < 0, errno == EINTR { continue }
    guard count > 0 else { break }
    bytes += chunk[0..<count]
  }
  return String(decoding: bytes, as: UTF8.self)
}

struct ReplicaDidNotStart: Error, CustomStringConvertible {
  var stderr: String
  var description: String { "tollgate serve did not start: \(stderr)" }
}

import Foundation
import Testing
import TollgateTesting

/// `tollgate serve` as a process with its doors on, for the attack suites (issue 28): the ports of
/// the fast port, the gRPC door and the HTTP door from its listening line.
struct DoorAttackServe {
  let process: ChildProcess
  let fast: Int
  let grpc: Int
  let http: Int

  /// Starts serve with `service` as its config section (the doors' `listen` set by the caller).
  static func start(_ service: [String: Any], in dir: TemporaryDirectory) async throws -> DoorAttackServe {
    let config = dir.file("config-\(UUID().uuidString.prefix(8)).json")
    try JSONSerialization.data(withJSONObject: ["service": service]).write(to: URL(fileURLWithPath: config))
    let process = try ChildProcess(["serve", "--config", config, "--create", "--log-level", "warning"])
    guard let line = await process.waitForLine(containing: "listening on") else {
      let ended = process.finish()
      Issue.record("serve did not start: \(ended.stderr)")
      throw CancellationError()
    }
    let words = line.split(separator: " ").map { $0.trimmingCharacters(in: [","]) }
    func port(_ prefix: String) throws -> Int {
      let address = try #require(words.first { $0.hasPrefix(prefix) }, "no \(prefix) in \(line)")
      return try #require(Int(address[address.index(after: address.lastIndex(of: ":")!)...]))
    }
    return DoorAttackServe(
      process: process, fast: try port("127.0.0.1:"), grpc: try port("grpc:"), http: try port("http:"))
  }
}

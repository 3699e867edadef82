import Foundation
import TollgateTesting

#if canImport(Glibc)
  import Glibc
#endif

/// A `tollgate worker` process whose standard output and error (its log) go to files, read at
/// any time without a pipe to drain. `TOLLGATE_E2E_WORKER` names another `tollgate` binary to
/// run instead of the one built beside the tests (to show what a test catches in an older build).
final class LoggedWorker: Sendable {
  let name: String
  let process: SpawnedProcess
  let outputPath: String
  let logPath: String

  init(name: String, arguments: [String], environment: [String: String], output: String, log: String) throws {
    self.name = name
    outputPath = output
    logPath = log
    for path in [output, log] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    let err = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    defer {
      try? out.close()
      try? err.close()
    }
    process = try SpawnedProcess(
      executable: ProcessInfo.processInfo.environment["TOLLGATE_E2E_WORKER"] ?? ChildProcess.tollgateExecutable,
      arguments: arguments,
      environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, stdout: out, stderr: err)
  }

  /// Starts `tollgate worker --config config --create` logging at `info` to `name.out` and
  /// `name.log` in `dir`, listening for notifications on `listen` when given, and waits until it
  /// says it listens (`notifications on`); a worker that exits or stays silent for `timeout` is
  /// stopped and its log thrown (`WorkerDidNotStart`).
  static func start(
    _ name: String, config: String, in dir: TemporaryDirectory, environment: [String: String], listen: Int? = nil,
    timeout: Duration = .seconds(30)
  ) async throws -> LoggedWorker {
    var arguments = ["worker", "--config", config, "--create", "--log-level", "info"]
    if let listen { arguments += ["--listen", "127.0.0.1:\(listen)"] }
    let worker = try LoggedWorker(
      name: name, arguments: arguments, environment: environment, output: dir.file("\(name).out"),
      log: dir.file("\(name).log"))
    let deadline = ContinuousClock.now + timeout
    while !worker.output.contains("notifications on") {
      guard worker.process.isRunning, ContinuousClock.now < deadline else {
        _ = await worker.stop()
        throw WorkerDidNotStart(stderr: worker.log)
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    return worker
  }

  var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// How many lines of its log contain `marker`.
  func count(_ marker: String) -> Int {
    log.split(separator: "\n").count { $0.contains(marker) }
  }

  /// Stops it (SIGCONT first, should a test have left it stopped; then SIGTERM, and SIGKILL after
  /// 10 s) and returns its exit status; waits off the cooperative pool.
  @discardableResult
  func stop() async -> Int32 {
    let process = self.process
    guard process.isRunning else { return process.terminationStatus }
    kill(process.processIdentifier, SIGCONT)
    process.terminate()
    let deadline = ContinuousClock.now + .seconds(10)
    while process.isRunning && ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(20))
    }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    return await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: process.terminationStatus) }
    }
  }
}

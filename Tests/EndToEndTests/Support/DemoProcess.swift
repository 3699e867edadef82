import Foundation
import Synchronization
import TollgateTesting

#if canImport(Glibc)
  import Glibc
#endif

/// `tollgate demo` as a process on free ports, in a data folder of the test's, logging at notice
/// (its log drained as it comes, so a full pipe never stops it): what it announced once its
/// users are ready (the console's address, the store ids).
struct DemoProcess {
  let process: ChildProcess
  let log: DrainedLog
  /// Everything it printed up to and including its last announcement line.
  let announcement: String
  let consoleURL: String
  /// Each demo user's store id, as the announcement lists them.
  let storeIds: [String: String]

  static func start(in dir: TemporaryDirectory) async throws -> DemoProcess {
    let process = try ChildProcess([
      "demo", "--data", dir.path, "--service-port", "0", "--simulator-port", "0", "--worker-port", "0",
      "--worker-admin-port", "0", "--console-port", "0", "--log-level", "notice",
    ])
    let log = DrainedLog(process.stderr.fileHandleForReading)
    // Its users are bought and verified first: tens of seconds on a busy machine.
    let text = await readStdout(process, until: "Ctrl-C stops everything.", timeoutSeconds: 150)
    guard let text,
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Support console: ") })
    else {
      process.terminate()
      await waitForExit(process)
      throw DemoFailure(description: "the demo did not start: \(text ?? "") \(log.text.suffix(3_000))")
    }
    var storeIds: [String: String] = [:]
    for row in text.split(separator: "\n") where row.hasPrefix("  demo-") {
      let words = row.split(separator: " ")
      if words.count >= 2, let id = words.last { storeIds[String(words[0])] = String(id) }
    }
    return DemoProcess(
      process: process, log: log, announcement: text,
      consoleURL: String(line.dropFirst("Support console: ".count)), storeIds: storeIds)
  }

  /// Stops it (SIGTERM: the console's door drains, then the stack), waits for it off the
  /// cooperative pool, and returns its log.
  @discardableResult
  func stop() async -> String {
    process.terminate()
    await Self.waitForExit(process)
    return log.text
  }

  static func waitForExit(_ process: ChildProcess) async {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        process.process.waitUntilExit()
        continuation.resume()
      }
    }
  }

  struct DemoFailure: Error, CustomStringConvertible {
    var description: String
  }

  /// Stdout up to the line holding `marker`, read off the cooperative pool; nil if it never came.
  static func readStdout(_ process: ChildProcess, until marker: String, timeoutSeconds: Double) async -> String? {
    let handle = process.stdout.fileHandleForReading
    return await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        var buffer = Data()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
          var ready = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
          guard poll(&ready, 1, Int32(max(0, deadline.timeIntervalSinceNow * 1_000))) > 0 else { break }
          let chunk = handle.availableData
          if chunk.isEmpty { break }
          buffer.append(chunk)
          let text = String(decoding: buffer, as: UTF8.self)
          if text.contains(marker) {
            continuation.resume(returning: text)
            return
          }
        }
        continuation.resume(returning: nil)
      }
    }
  }
}

/// A pipe read to its end on a thread of its own, readable at any time.
final class DrainedLog: Sendable {
  private let data = Mutex<Data>(Data())

  init(_ handle: FileHandle) {
    Thread { [self] in
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { return }
        append(chunk)
      }
    }.start()
  }

  private func append(_ chunk: Data) { data.withLock { $0.append(chunk) } }

  var text: String { String(decoding: data.withLock { $0 }, as: UTF8.self) }
}

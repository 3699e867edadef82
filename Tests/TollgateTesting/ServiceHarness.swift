import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the built `tollgate` executable as a child process.
public final class ChildProcess: @unchecked Sendable {
  // @unchecked Sendable: the pipes are set up in init and afterwards only read (Pipe is not
  // Sendable); `process` is.
  public let process: SpawnedProcess
  public let stdout = Pipe()
  public let stderr = Pipe()

  /// The `tollgate` binary beside the test bundle (swift build puts both in the same folder).
  public static var tollgateExecutable: String {
    var url = Bundle.main.bundleURL
    while url.pathComponents.count > 1 {
      let candidate = url.appendingPathComponent("tollgate").path
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue {
        return candidate
      }
      url.deleteLastPathComponent()
    }
    return ".build/debug/tollgate"
  }

  public init(
    _ arguments: [String], executable: String = ChildProcess.tollgateExecutable, environment: [String: String?] = [:]
  ) throws {
    // Added to this process's environment; a nil value removes the variable.
    var merged = ProcessInfo.processInfo.environment
    for (name, value) in environment { merged[name] = value }
    process = try SpawnedProcess(
      executable: executable, arguments: arguments, environment: merged, stdout: stdout.fileHandleForWriting,
      stderr: stderr.fileHandleForWriting)
    // The child holds the write ends now; the pipes end when it exits.
    try stdout.fileHandleForWriting.close()
    try stderr.fileHandleForWriting.close()
  }

  /// Reads stdout until a line containing `marker` appears (or the process ends), returning it.
  /// The wait blocks a thread, so it runs on a Dispatch queue, off the cooperative pool: with two
  /// cores, two tests waiting there would starve the in-process simulators and services that the
  /// child process talks to.
  public func waitForLine(containing marker: String, timeoutSeconds: Double = 20) async -> String? {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(returning: self.blockingWaitForLine(containing: marker, timeoutSeconds: timeoutSeconds))
      }
    }
  }

  private func blockingWaitForLine(containing marker: String, timeoutSeconds: Double) -> String? {
    let handle = stdout.fileHandleForReading
    var buffer = Data()
    let deadline = Date().addingTimeInterval(timeoutSeconds)
    while Date() < deadline {
      // Wait for data no longer than the deadline: `availableData` alone blocks until the child
      // writes or exits.
      var ready = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&ready, 1, Int32(max(0, deadline.timeIntervalSinceNow * 1_000))) > 0 else { return nil }
      let chunk = handle.availableData
      if chunk.isEmpty { return nil }  // EOF
      buffer.append(chunk)
      let text = String(decoding: buffer, as: UTF8.self)
      if let line = text.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
    }
    return nil
  }

  /// Waits for exit and returns (status, stdout, stderr).
  public func finish() -> (status: Int32, stdout: String, stderr: String) {
    // Both pipes are drained at once: a child that fills one pipe while the other is read to its
    // end blocks, and never exits.
    let errors = DrainedPipe(stderr.fileHandleForReading)
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = errors.wait()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
  }

  public func terminate() {
    if process.isRunning { process.terminate() }
  }

  /// Runs to completion.
  public static func run(_ arguments: [String], environment: [String: String?] = [:]) throws
    -> (status: Int32, stdout: String, stderr: String)
  {
    try ChildProcess(arguments, environment: environment).finish()
  }

  /// Runs to completion, waiting on a Dispatch queue: the cooperative pool has a thread per core
  /// (two here), and a test blocking one of them for a process's lifetime starves every other test.
  public static func runDetached(_ arguments: [String], environment: [String: String?] = [:]) async throws
    -> (status: Int32, stdout: String, stderr: String)
  {
    let child = try ChildProcess(arguments, environment: environment)
    return await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: child.finish()) }
    }
  }

  /// Runs `executable` with `arguments` to completion off the cooperative pool; its exit status.
  public static func runTool(_ executable: String, _ arguments: [String]) async throws -> Int32 {
    let process = try SpawnedProcess(executable: executable, arguments: arguments)
    return await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        process.waitUntilExit()
        continuation.resume(returning: process.terminationStatus)
      }
    }
  }
}

/// Reads a pipe to its end on a thread of its own.
final class DrainedPipe: Sendable {
  private let data = Mutex<Data>(Data())
  private let done = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle) {
    Thread { [self] in
      let read = handle.readDataToEndOfFile()
      data.withLock { $0 = read }
      done.signal()
    }.start()
  }

  /// Everything the pipe held, once the writer closed it.
  func wait() -> Data {
    done.wait()
    return data.withLock { $0 }
  }
}

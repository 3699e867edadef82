import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A child process started with `posix_spawn`, with the part of Foundation's `Process` the tests
/// use. Foundation's `Process.run()` on Linux (Swift 6.3.1) copies each `/proc/self/fd` entry's
/// whole 256-byte `d_name` while looking for descriptors to close, reading past glibc's readdir
/// buffer: about one run in five of a suite that starts many processes crashed ("Bad pointer
/// dereference" in `memcpy` under `Process.run()`; swift-corelibs-foundation PR 5472). Here the
/// child closes every descriptor above 2 with `posix_spawn_file_actions_addclosefrom_np`.
public final class SpawnedProcess: Sendable {
  public let processIdentifier: Int32
  /// The wait status once the child was reaped.
  private let waitStatus = Mutex<Int32?>(nil)

  /// Starts `executable` with `arguments` and `environment` (all of it; nil: this process's),
  /// its standard output and error on `stdout` / `stderr` when given (else this process's).
  public init(
    executable: String, arguments: [String], environment: [String: String]? = nil, stdout: FileHandle? = nil,
    stderr: FileHandle? = nil
  ) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout.fileDescriptor, 1) }
    if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr.fileDescriptor, 2) }
    guard let closeFrom = Self.addCloseFrom else {
      throw NSError(
        domain: NSPOSIXErrorDomain, code: Int(ENOSYS),
        userInfo: [NSLocalizedDescriptionKey: "posix_spawn_file_actions_addclosefrom_np is missing (glibc < 2.34)"])
    }
    _ = closeFrom(&actions, 3)

    let argv = ([executable] + arguments).map { strdup($0) }
    let variables = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") }
    defer {
      for pointer in argv { free(pointer) }
      for pointer in variables { free(pointer) }
    }
    var pid: pid_t = 0
    let result = (argv + [nil]).withUnsafeBufferPointer { argvBuffer in
      (variables + [nil]).withUnsafeBufferPointer { envBuffer in
        posix_spawn(
          &pid, executable, &actions, nil, UnsafeMutablePointer(mutating: argvBuffer.baseAddress!),
          UnsafeMutablePointer(mutating: envBuffer.baseAddress!))
      }
    }
    guard result == 0 else {
      throw NSError(
        domain: NSPOSIXErrorDomain, code: Int(result),
        userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable): \(String(cString: strerror(result)))"])
    }
    processIdentifier = pid
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
  /// module does not declare.
  private static let addCloseFrom:
    (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
      else { return nil }
      return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

  /// Whether the child has not exited yet (reaps it when it has).
  public var isRunning: Bool {
    if waitStatus.withLock({ $0 }) != nil { return false }
    var status: Int32 = 0
    let reaped = waitpid(processIdentifier, &status, WNOHANG)
    if reaped == processIdentifier {
      waitStatus.withLock { $0 = status }
      return false
    }
    return reaped == 0
  }

  /// Sends SIGTERM, unless it has exited.
  public func terminate() {
    if isRunning { kill(processIdentifier, SIGTERM) }
  }

  /// Blocks until the child has exited.
  public func waitUntilExit() {
    while waitStatus.withLock({ $0 }) == nil {
      var status: Int32 = 0
      let reaped = waitpid(processIdentifier, &status, 0)
      if reaped == processIdentifier {
        waitStatus.withLock { $0 = status }
      } else if reaped < 0, errno != EINTR {
        // Reaped by another waiter (ECHILD): it stores the status in a moment.
        usleep(1_000)
      }
    }
  }

  /// The exit code, or the signal that ended it (as Foundation's `Process` reports them).
  public var terminationStatus: Int32 {
    waitUntilExit()
    let status = waitStatus.withLock { $0 } ?? 0
    return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
  }

  public var terminationReason: Process.TerminationReason {
    waitUntilExit()
    return (waitStatus.withLock { $0 } ?? 0) & 0x7f == 0 ? .exit : .uncaughtSignal
  }
}

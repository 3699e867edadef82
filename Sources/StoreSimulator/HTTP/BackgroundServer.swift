import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A Hummingbird application serving in the background of whoever started it (the simulator, a
/// test's scripted server) until `stop()`.
///
/// `stop()` shuts it down gracefully, and cancels it only if requests are still running after a
/// grace period. Cancelling a server right away can crash the process: a connection accepted in
/// that moment is never handed to the serving loop, and NIO traps when its writer is released
/// unfinished ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#2637). That
/// crashed the test process under the full suite, when a worker process was still calling a
/// simulator being stopped.
public final class BackgroundServer: Sendable {
  private let group: ServiceGroup
  private let task: Task<Void, any Error>
  /// The port it listens on.
  public let port: Int

  /// Starts `app` (configured with `onServerRunning: onRunning`, which yields the bound port) and
  /// waits until it listens; nil when it could not.
  ///
  /// `stop()` lets requests in flight run for `cancelAfter`, then cancels them.
  public static func start(
    logger: Logger, cancelAfter: Duration = .seconds(5),
    _ makeApp: (_ onRunning: @escaping @Sendable (any Channel) async -> Void) -> some Service
  ) async -> BackgroundServer? {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    let app = makeApp { channel in continuation.yield(channel.localAddress?.port ?? 0) }
    var configuration = ServiceGroupConfiguration(services: [app], logger: logger)
    configuration.maximumGracefulShutdownDuration = cancelAfter
    let group = ServiceGroup(configuration: configuration)
    // Kept by the server and ended by `stop()`: the server is started and stopped by its
    // callers, not run inside their own ServiceGroup.
    let task = Task { try await group.run() }
    var iterator = stream.makeAsyncIterator()
    guard let port = await iterator.next(), port > 0 else {
      task.cancel()
      _ = await task.result
      return nil
    }
    return BackgroundServer(group: group, task: task, port: port)
  }

  private init(group: ServiceGroup, task: Task<Void, any Error>, port: Int) {
    self.group = group
    self.task = task
    self.port = port
  }

  /// Stops accepting, lets the requests in flight finish (cancelled past the `cancelAfter` given
  /// to `start`), and returns once it has stopped.
  public func stop() async {
    await group.triggerGracefulShutdown()
    _ = await task.result
  }
}

import NIOPosix

/// Where a gateway runs CPU-bound or blocking work a stranger can trigger: signature and
/// certificate-chain checks of a store's signed payloads. The cooperative pool has one thread per
/// core (two here): a burst of forged notifications verified on it would stall every other task
/// of the worker, `/health` on the admin listener included. This runs the work on NIO's blocking
/// thread pool (`NIOThreadPool.singleton`) and suspends the caller meanwhile. (The databases keep
/// their own serial queue, `SerializedConnection`: one mechanism per job.)
///
/// ```swift
/// let verdict = await BlockingWork.run { verifier.verifyNotificationBody(body) }
/// ```
public enum BlockingWork {
  /// Runs `body` on the blocking pool and returns what it returned. If the pool does not take the
  /// work (it was shut down, or the task was cancelled before the work started), `body` runs here.
  public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    do {
      return try await NIOThreadPool.singleton.runIfActive(body)
    } catch {
      return body()
    }
  }

  /// `run(_:)` for work that throws `E`.
  public static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let result: Result<T, E> = await run { () -> Result<T, E> in
      do throws(E) {
        return .success(try body())
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }
}

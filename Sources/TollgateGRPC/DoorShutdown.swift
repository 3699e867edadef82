import GRPCCore

/// Whether the door has begun its graceful shutdown, for the health service's answers and its
/// watchers' loops.
final class DoorShutdown: Sendable {
  private let began = OneShot<Void>()

  var isShuttingDown: Bool { began.value != nil }

  /// Marks the door as shutting down and wakes every `sleep`.
  func begin() {
    began.fire(())
  }

  /// Sleeps for `duration`, or less when the shutdown begins or the RPC of `cancellation` is
  /// cancelled meanwhile; throws when the task is cancelled.
  func sleep(
    for duration: Duration, unlessCancelled cancellation: ServerContext.RPCCancellationHandle? = nil
  ) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await Task.sleep(for: duration) }
      group.addTask { _ = await self.began.wait() }
      if let cancellation { group.addTask { try? await cancellation.cancelled } }
      _ = try await group.next()
      group.cancelAll()
    }
  }
}

/// Why a worker may not run on its database: another worker holds it, or took it over.
public struct WorkerLeaseError: Error, Sendable, CustomStringConvertible {
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String { case held, lost }
    private let value: Value
    private init(_ value: Value) { self.value = value }

    /// Another worker's lease is fresh: this one must not start.
    public static let held = Code(.held)
    /// This worker's lease was taken over (its heartbeat went stale): it must stop.
    public static let lost = Code(.lost)

    public var description: String { value.rawValue }
  }

  public let code: Code
  public let message: String
  /// The worker that holds the lease, when known.
  public let holder: WorkerLeaseHolder?

  public init(code: Code, message: String, holder: WorkerLeaseHolder?) {
    self.code = code
    self.message = message
    self.holder = holder
  }

  public var description: String { message }

  /// What a fenced write throws when the lease row no longer names its worker (`current`: who
  /// holds it now, nil when it was released): the same words on every storage.
  public static func lost(current: WorkerLeaseHolder?) -> WorkerLeaseError {
    WorkerLeaseError(
      code: .lost,
      message: "this worker no longer holds the database's worker lease"
        + (current.map { " (pid \($0.pid) on \($0.host) took it over)" } ?? " (it was released)")
        + "; nothing was written, and this worker stops",
      holder: current)
  }
}

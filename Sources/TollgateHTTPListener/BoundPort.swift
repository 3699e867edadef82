/// The port an HTTP listener bound, for callers that asked for port 0; 0 when it could not listen.
public actor BoundPort {
  private var port: Int?
  private var waiters: [CheckedContinuation<Int, Never>] = []

  public init() {}

  public func set(_ port: Int) {
    self.port = port
    for waiter in waiters { waiter.resume(returning: port) }
    waiters.removeAll()
  }

  public var isSet: Bool { port != nil }

  /// The port, waiting until it is known.
  public func value() async -> Int {
    if let port { return port }
    return await withCheckedContinuation { waiters.append($0) }
  }
}

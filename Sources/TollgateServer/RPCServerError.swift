import Glibc

/// Why the RPC server could not start.
public enum RPCServerError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The listening socket could not be set up (`errno`: EADDRINUSE, EACCES, ...).
  case bindFailed(host: String, port: Int, errno: Int32)
  /// The host name does not resolve to an address of this machine.
  case unresolvableHost(String)
  /// `run()` was called on a server that is running.
  case notRunnable
  /// A Unix domain socket could not be set up (EADDRINUSE: a server listens there; EEXIST: the
  /// path is another kind of file).
  case unixSocketFailed(path: String, errno: Int32)
  /// No address to listen on was given.
  case noListeners
  /// An event loop's thread, epoll set or wake-up could not be created.
  case eventLoopSetupFailed(errno: Int32)

  public var description: String {
    switch self {
    case .bindFailed(let host, let port, let errno):
      "cannot listen on \(host):\(port): \(String(cString: strerror(errno)))"
    case .unresolvableHost(let host):
      "cannot listen on \(host): the host does not resolve"
    case .unixSocketFailed(let path, let errno):
      "cannot listen on unix:\(path): \(String(cString: strerror(errno)))"
    case .noListeners:
      "no address to listen on"
    case .notRunnable:
      "the server is running already"
    case .eventLoopSetupFailed(let errno):
      "cannot start the server's event loops: \(String(cString: strerror(errno)))"
    }
  }
}

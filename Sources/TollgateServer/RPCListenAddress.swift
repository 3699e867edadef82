/// Where the RPC server listens: a TCP address, or a Unix domain socket (protobuf-c-rpc's local
/// transport). Written `HOST:PORT`, `[IPv6]:PORT` or `unix:/path/to/socket`.
public enum RPCListenAddress: Sendable, Hashable, CustomStringConvertible {
  case tcp(host: String, port: Int)
  case unix(path: String)

  /// Parses the written form; nil when it is neither.
  public init?(_ text: String) {
    if text.hasPrefix("unix:") {
      let path = String(text.dropFirst("unix:".count))
      guard path.hasPrefix("/") || path.hasPrefix("."), path.utf8.count < 108 else { return nil }
      self = .unix(path: path)
      return
    }
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
      (0...65_535).contains(port)
    else { return nil }
    var host = String(text[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty, !host.contains(" ") else { return nil }
    self = .tcp(host: host, port: port)
  }

  public var description: String {
    switch self {
    case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    case .unix(let path): "unix:\(path)"
    }
  }

  /// Only this machine can connect: a loopback address, or a Unix socket.
  public var isLocal: Bool {
    switch self {
    case .unix: true
    case .tcp(let host, _): host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
  }
}

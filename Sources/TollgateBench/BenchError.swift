#if canImport(Glibc)
  import Glibc
#endif

/// Why a benchmark could not run.
public enum BenchError: Error, Sendable, Hashable, CustomStringConvertible {
  case invalidConfiguration([String])
  case connect(host: String, port: Int, errno: Int32)
  case connectUnix(path: String, errno: Int32)
  /// The TLS context could not be made, or a handshake failed (with OpenSSL's reason).
  case tls(String)
  /// The caller was refused, may not read, or no answer to Authenticate came.
  case authentication(String)
  case system(String, Int32)

  public var description: String {
    switch self {
    case .invalidConfiguration(let problems): "invalid benchmark: " + problems.joined(separator: "; ")
    case .connect(let host, let port, let code): "cannot connect to \(host):\(port): \(String(cString: strerror(code)))"
    case .connectUnix(let path, let code): "cannot connect to unix:\(path): \(String(cString: strerror(code)))"
    case .tls(let reason): "TLS: \(reason)"
    case .authentication(let reason): "authentication: \(reason)"
    case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
    }
  }
}

#if canImport(Glibc)
  import Glibc
#endif

/// Why a benchmark could not run.
public enum BenchError: Error, Sendable, Hashable, CustomStringConvertible {
  case invalidConfiguration([String])
  case connect(host: String, port: Int, errno: Int32)
  case system(String, Int32)

  public var description: String {
    switch self {
    case .invalidConfiguration(let problems): "invalid benchmark: " + problems.joined(separator: "; ")
    case .connect(let host, let port, let code): "cannot connect to \(host):\(port): \(String(cString: strerror(code)))"
    case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
    }
  }
}

import ArgumentParser
import TollgateHTTPListener

/// A `HOST:PORT` argument (`127.0.0.1:7701`, `localhost:7701`, `[::1]:7701`).
struct HostPort: ExpressibleByArgument, Sendable, CustomStringConvertible {
  var host: String
  var port: Int

  init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  /// Read as a config file's addresses are (`ListenAddress`): port 0 to 65535, IPv6 in brackets.
  init?(argument: String) {
    guard let address = ListenAddress(argument) else { return nil }
    self.host = address.host
    self.port = address.port
  }

  var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

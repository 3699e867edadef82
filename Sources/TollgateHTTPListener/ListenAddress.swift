/// A TCP address to listen on, `HOST:PORT`, checked as a config value: the host is an IPv4
/// address, a host name, or an IPv6 address in brackets (`[::1]:7703`); the port is decimal
/// digits from 0 (any free port) to 65535. Nothing is wrapped or defaulted: `127.0.0.1:99999`,
/// `localhost`, `:7703` and `::1:7703` are refused.
///
/// ```swift
/// let address = try ListenAddress.parse(settings.listen, key: "worker.listen")
/// // or, collecting problems: ListenAddress.problem(text, key: "service.listen") -> String?
/// ```
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
  /// The host, without brackets.
  public var host: String
  public var port: Int

  public static let portRange = 0...65_535

  public init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  /// Nil when `text` is not a valid `HOST:PORT`.
  public init?(_ text: String) {
    guard case .success(let address) = Self.read(text) else { return nil }
    self = address
  }

  /// The address `text` under `key`, or an error naming the key and what is wrong.
  public static func parse(_ text: String, key: String) throws(ListenAddressError) -> ListenAddress {
    switch read(text) {
    case .success(let address): return address
    case .failure(let reason): throw ListenAddressError(problems: [message(text, key: key, reason: reason)])
    }
  }

  /// What is wrong with `text` as the value of `key`, or nil when it is a valid address.
  public static func problem(_ text: String, key: String) -> String? {
    guard case .failure(let reason) = read(text) else { return nil }
    return message(text, key: key, reason: reason)
  }

  /// `host:port`, with an IPv6 host in brackets.
  public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

  struct Reason: Error {
    var text: String
  }

  private static func message(_ text: String, key: String, reason: Reason) -> String {
    "\(key): \"\(text)\" is not an address to listen on (HOST:PORT, port 0 to 65535): \(reason.text)"
  }

  private static func read(_ text: String) -> Result<ListenAddress, Reason> {
    guard let colon = text.lastIndex(of: ":") else { return .failure(Reason(text: "no port")) }
    var host = Substring(text[..<colon])
    let portText = text[text.index(after: colon)...]
    guard !portText.isEmpty, portText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
      return .failure(Reason(text: "the port is not a number"))
    }
    guard portText.count <= 5, let port = Int(portText), portRange.contains(port) else {
      return .failure(Reason(text: "the port is out of range"))
    }
    if host.hasPrefix("[") && host.hasSuffix("]") {
      host = host.dropFirst().dropLast()
      let ipv6 = host.contains(":") && host.utf8.allSatisfy { $0.isHexDigit || $0 == UInt8(ascii: ":") || $0 == .dot }
      guard ipv6 else { return .failure(Reason(text: "the host in brackets is not an IPv6 address")) }
    } else {
      guard !host.isEmpty else { return .failure(Reason(text: "no host (0.0.0.0 for every interface)")) }
      guard !host.contains(":") else { return .failure(Reason(text: "an IPv6 host goes in brackets: [::1]:7703")) }
      let name = host.utf8.count <= 253 && host.utf8.allSatisfy { $0.isHostNameByte }
      guard name, !host.hasPrefix("-"), !host.hasPrefix(".") else {
        return .failure(Reason(text: "the host is neither an IP address nor a host name"))
      }
    }
    return .success(ListenAddress(host: String(host), port: port))
  }
}

/// A listen address that is not `HOST:PORT`: each problem starts with its config key
/// (`worker.listen: "127.0.0.1:99999" is not an address to listen on …`), so a caller can report
/// it among its other configuration problems.
public struct ListenAddressError: Error, Sendable, Hashable, CustomStringConvertible {
  public var problems: [String]

  public init(problems: [String]) {
    self.problems = problems
  }

  public var description: String { problems.joined(separator: "\n") }
}

extension UInt8 {
  fileprivate static let dot = UInt8(ascii: ".")

  fileprivate var isHexDigit: Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
      || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
  }

  fileprivate var isHostNameByte: Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
      || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self) || self == UInt8(ascii: "-") || self == .dot
  }
}

/// A PostgreSQL database, from a `postgres://` or `postgresql://` URL:
/// `postgres://USER@HOST:PORT/DATABASE?sslmode=MODE`, or `postgres://USER@/DATABASE?host=/run/postgresql`
/// for a Unix socket (the directory holding `.s.PGSQL.PORT`, as libpq reads it).
///
/// The password is never part of the URL (a URL ends up on command lines, in `ps` and in logs): it
/// comes from the environment or a file (`PostgresPassword`). A URL with one is refused.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
  public enum Endpoint: Sendable, Hashable {
    case tcp(host: String, port: Int)
    /// The socket file itself: `DIRECTORY/.s.PGSQL.PORT`.
    case unixSocket(path: String)
  }

  /// `sslmode`, as libpq names them.
  public enum SSLMode: String, Sendable, Hashable, CaseIterable {
    /// Never TLS (loopback, a Unix socket).
    case disable
    /// TLS when the server offers it, without checking its certificate; plain otherwise (libpq's default).
    case prefer
    /// TLS always, without checking the server's certificate.
    case require
    /// TLS always, the certificate checked against the system's trusted roots, the host name too.
    case verifyFull = "verify-full"
  }

  public var endpoint: Endpoint
  public var user: String
  public var database: String
  public var sslMode: SSLMode

  public init(endpoint: Endpoint, user: String, database: String, sslMode: SSLMode) {
    self.endpoint = endpoint
    self.user = user
    self.database = database
    self.sslMode = sslMode
  }

  /// Parses a `postgres://` or `postgresql://` URL. Errors never repeat the URL (it may hold a
  /// password someone put there anyway).
  public init(url: String) throws(PostgresLocationError) {
    let lowered = url.lowercased()
    guard let prefix = ["postgres://", "postgresql://"].first(where: { lowered.hasPrefix($0) }) else {
      throw .notPostgres
    }
    var rest = Substring(url.dropFirst(prefix.count))
    var query: Substring = ""
    if let mark = rest.firstIndex(of: "?") {
      query = rest[rest.index(after: mark)...]
      rest = rest[..<mark]
    }
    guard let slash = rest.firstIndex(of: "/") else { throw .noDatabase }
    let authority = rest[..<slash]
    let database = try Self.decoded(rest[rest.index(after: slash)...])
    guard !database.isEmpty, !database.contains("/") else { throw .noDatabase }
    guard let at = authority.lastIndex(of: "@") else { throw .noUser }
    let userInfo = authority[..<at]
    guard !userInfo.contains(":") else { throw .passwordInURL }
    let user = try Self.decoded(userInfo)
    guard !user.isEmpty else { throw .noUser }
    let hostPort = authority[authority.index(after: at)...]

    var host: String?
    var port = 5432
    if !hostPort.isEmpty {
      var hostPart = hostPort
      var portPart: Substring?
      if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {  // [::1]:5432
        hostPart = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
        let after = hostPort[hostPort.index(after: close)...]
        if after.hasPrefix(":") { portPart = after.dropFirst() } else if !after.isEmpty { throw .badPort }
      } else if let colon = hostPort.lastIndex(of: ":") {
        hostPart = hostPort[..<colon]
        portPart = hostPort[hostPort.index(after: colon)...]
      }
      if let portPart {
        guard let value = Int(portPart), (1...65535).contains(value) else { throw .badPort }
        port = value
      }
      host = try Self.decoded(hostPart)
    }

    var sslMode = SSLMode.prefer
    for pair in query.split(separator: "&") where !pair.isEmpty {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let key = String(parts[0])
      let value = parts.count > 1 ? try Self.decoded(parts[1]) : ""
      switch key {
      case "sslmode":
        guard let mode = SSLMode(rawValue: value) else { throw .badSSLMode }
        sslMode = mode
      case "host":
        guard host == nil || host == "" else { throw .twoHosts }
        host = value
      case "port":
        guard let value = Int(value), (1...65535).contains(value) else { throw .badPort }
        port = value
      case "password":
        throw .passwordInURL
      default:
        throw .unknownParameter(String(key.prefix(32)))
      }
    }
    guard let host, !host.isEmpty else { throw .noHost }
    self.user = user
    self.database = database
    self.sslMode = sslMode
    if host.hasPrefix("/") {
      self.endpoint = .unixSocket(path: host.hasSuffix("/") ? "\(host).s.PGSQL.\(port)" : "\(host)/.s.PGSQL.\(port)")
    } else {
      self.endpoint = .tcp(host: host, port: port)
    }
  }

  /// The URL again, without a password: for logs, the start-up line and error messages, and for
  /// the command lines of processes started with the same database (`PostgresLocation(url:)` of
  /// it is this location again).
  public var description: String {
    let user = Self.encoded(user)
    let database = Self.encoded(database)
    switch endpoint {
    case .tcp(let host, let port):
      let shown = host.contains(":") ? "[\(host)]" : Self.encoded(host)
      return "postgres://\(user)@\(shown):\(port)/\(database)?sslmode=\(sslMode.rawValue)"
    case .unixSocket(let path):
      // `DIRECTORY/.s.PGSQL.PORT`, as `init(url:)` built it from ?host=DIRECTORY&port=PORT.
      let slash = path.lastIndex(of: "/") ?? path.startIndex
      let file = path[path.index(after: slash)...]
      if file.hasPrefix(".s.PGSQL."), let port = Int(file.dropFirst(".s.PGSQL.".count)), slash > path.startIndex {
        return
          "postgres://\(user)@/\(database)?host=\(Self.encoded(String(path[..<slash]), keeping: "/"))&port=\(port)&sslmode=\(sslMode.rawValue)"
      }
      return "postgres://\(user)@/\(database)?host=\(Self.encoded(path, keeping: "/"))&sslmode=\(sslMode.rawValue)"
    }
  }

  /// `text` with the characters that would end its part of a URL (and `%`) percent-encoded,
  /// except those in `keeping` (a socket directory's slashes).
  private static func encoded(_ text: String, keeping: String = "") -> String {
    var result = ""
    for byte in text.utf8 {
      if byte < 0x21 || byte >= 0x7F || ("%@:/?&=#[]".utf8.contains(byte) && !keeping.utf8.contains(byte)) {
        let hex = Array("0123456789ABCDEF".utf8)
        result += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
      } else {
        result.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return result
  }

  /// This location with another database on the same server (tests make one per test).
  public func with(database: String) -> PostgresLocation {
    var copy = self
    copy.database = database
    return copy
  }

  private static func decoded(_ text: Substring) throws(PostgresLocationError) -> String {
    guard text.contains("%") else { return String(text) }
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      if byte == UInt8(ascii: "%") {
        guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else {
          throw .badEscape
        }
        bytes.append(high << 4 | low)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}

/// Why a `postgres://` URL names no database Tollgate can open. Never repeats the URL.
public enum PostgresLocationError: Error, Sendable, Hashable, CustomStringConvertible {
  case notPostgres
  case noDatabase
  case noUser
  case noHost
  case twoHosts
  case badPort
  case badEscape
  case badSSLMode
  case passwordInURL
  case unknownParameter(String)

  static let form = "postgres://USER@HOST:PORT/DATABASE?sslmode=disable|prefer|require|verify-full"

  public var description: String {
    switch self {
    case .notPostgres: "the database URL does not start with postgres:// or postgresql://"
    case .noDatabase: "the PostgreSQL URL names no database: \(Self.form)"
    case .noUser: "the PostgreSQL URL names no user: \(Self.form)"
    case .noHost: "the PostgreSQL URL names no host (a name, an address, or ?host=/socket/directory): \(Self.form)"
    case .twoHosts: "the PostgreSQL URL names a host twice (before the database and in ?host=)"
    case .badPort: "the PostgreSQL URL's port is not a number from 1 to 65535"
    case .badEscape: "the PostgreSQL URL has a % not followed by two hex digits"
    case .badSSLMode: "the PostgreSQL URL's sslmode is not one of disable, prefer, require, verify-full"
    case .passwordInURL:
      "the PostgreSQL URL carries a password; put it in TOLLGATE_DATABASE_PASSWORD or a file named by TOLLGATE_DATABASE_PASSWORD_FILE instead (a URL ends up in ps, shells' history and logs)"
    case .unknownParameter(let name):
      "the PostgreSQL URL has a parameter Tollgate does not know (\(name.filter { $0.isLetter || $0 == "_" })); it takes sslmode, host and port"
    }
  }
}

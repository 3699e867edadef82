import TollgatePostgres

/// Where Tollgate's data lives, from the `--database` flag or the config file's `database` key:
/// the one value every command reads to pick its storage (`StorageFactory`).
///
/// Accepted forms:
/// - a path (`/var/lib/tollgate/tollgate.sqlite`, `tollgate.sqlite`): an SQLite file, as always;
/// - `sqlite:PATH` (also `sqlite://PATH`, so `sqlite:///var/lib/…` is an absolute path): the same,
///   said explicitly;
/// - `postgres://USER@HOST:PORT/DATABASE?sslmode=MODE` or `postgresql://…` (also
///   `postgres://USER@/DATABASE?host=/socket/directory&port=N` for a Unix socket): a PostgreSQL
///   database (`PostgresLocation`). The password is never in the URL (one there is refused): it
///   comes from the environment (`PostgresPassword`). A URL `PostgresLocation` refuses is refused
///   with `StorageLocationError.postgres`, whose message never repeats the URL.
///
/// Anything else with a scheme (`mysql://…`, `sqlite:` with no path) and the empty string are
/// refused with a message that says what is accepted. A path may contain a colon (`data:1`);
/// only `NAME://` or the `sqlite:`, `postgres:` and `postgresql:` prefixes are read as a scheme.
public enum StorageLocation: Sendable, Hashable, CustomStringConvertible {
  /// An SQLite database file.
  case sqlite(path: String)
  /// A PostgreSQL database.
  case postgres(PostgresLocation)

  public init(_ value: String) throws(StorageLocationError) {
    guard !value.isEmpty else { throw .empty }
    let scheme = Self.scheme(of: value)
    switch scheme?.lowercased() {
    case nil:
      self = .sqlite(path: value)
    case "sqlite":
      var path = value.dropFirst("sqlite:".count)
      if path.hasPrefix("//") { path = path.dropFirst(2) }
      guard !path.isEmpty else { throw .noPath }
      self = .sqlite(path: String(path))
    case "postgres", "postgresql":
      do throws(PostgresLocationError) {
        self = .postgres(try PostgresLocation(url: value))
      } catch {
        throw .postgres(error)
      }
    case let other?:
      throw .unknownScheme(other)
    }
  }

  /// For logs, messages and the start-up line: the file's path, or the PostgreSQL URL without a
  /// password (`PostgresLocation.description`; the URL never holds one).
  public var description: String {
    switch self {
    case .sqlite(let path): path
    case .postgres(let location): location.description
    }
  }

  /// The scheme `value` starts with, or nil for a plain path.
  private static func scheme(of value: String) -> String? {
    let lowered = value.lowercased()
    for prefix in ["sqlite:", "postgres:", "postgresql:"] where lowered.hasPrefix(prefix) {
      return String(value.prefix(prefix.count - 1))
    }
    guard let separator = value.range(of: "://") else { return nil }
    let name = value[..<separator.lowerBound]
    // RFC 3986: a letter, then letters, digits, "+", "-" or ".". A path like "./a://b" is no scheme.
    let allowed = { (c: Unicode.Scalar) in
      c.isASCIILetter || ("0"..."9").contains(c) || "+-.".unicodeScalars.contains(c)
    }
    guard let first = name.unicodeScalars.first, first.isASCIILetter, name.unicodeScalars.allSatisfy(allowed) else {
      return nil
    }
    return String(name)
  }
}

/// Why a `--database` / `database` value names no storage this version can open. The message
/// never repeats a PostgreSQL URL (it may carry a password).
public enum StorageLocationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The value is empty.
  case empty
  /// `sqlite:` with no path after it.
  case noPath
  /// A `postgres://` or `postgresql://` URL that names no database Tollgate can open (no user, no
  /// database, a password in it, an unknown parameter, …): why, without the URL.
  case postgres(PostgresLocationError)
  /// A scheme Tollgate does not know (`mysql`, `file`, …), as written: letters, digits, `+`, `-`
  /// and `.` only (anything else is read as a path).
  case unknownScheme(String)

  static let accepted =
    "use an SQLite database (a file path, or sqlite:PATH) or PostgreSQL (postgres://USER@HOST:PORT/DATABASE)"

  public var description: String {
    switch self {
    case .empty:
      "the database is empty: \(Self.accepted)"
    case .noPath:
      "the database sqlite: names no file: \(Self.accepted)"
    case .postgres(let error):
      "the database is a PostgreSQL URL Tollgate cannot use: \(error)"
    case .unknownScheme(let scheme):
      "the database \(Self.quoted(scheme))://… is not a storage Tollgate knows; \(Self.accepted)"
    }
  }

  /// `scheme` (printable by construction) shortened to 32 characters.
  private static func quoted(_ scheme: String) -> String {
    scheme.count > 32 ? scheme.prefix(32) + "…" : scheme
  }
}

extension Unicode.Scalar {
  fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

import Foundation

/// Where the PostgreSQL password comes from: never the URL or argv (both show in `ps`), but
/// - `TOLLGATE_DATABASE_PASSWORD`, the password itself;
/// - `TOLLGATE_DATABASE_PASSWORD_FILE`, a file holding it (its first line; a mounted secret);
/// - `PGPASSWORD`, libpq's variable, when neither is set;
/// - none: the server lets the user in without one (`trust`, `peer` on a Unix socket).
public enum PostgresPassword {
  public static let variable = "TOLLGATE_DATABASE_PASSWORD"
  public static let fileVariable = "TOLLGATE_DATABASE_PASSWORD_FILE"

  /// The password the environment gives, or nil for none.
  public static func resolve(environment: [String: String]) throws(PostgresPasswordError) -> String? {
    if let value = environment[variable], environment[fileVariable] != nil, !value.isEmpty {
      throw .both
    }
    if let value = environment[variable], !value.isEmpty { return value }
    if let path = environment[fileVariable], !path.isEmpty {
      guard let data = FileManager.default.contents(atPath: path) else { throw .unreadableFile(path) }
      let text = String(decoding: data, as: UTF8.self)
      let firstLine = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
      let password = firstLine.hasSuffix("\r") ? String(firstLine.dropLast()) : String(firstLine)
      guard !password.isEmpty else { throw .emptyFile(path) }
      return password
    }
    if let value = environment["PGPASSWORD"], !value.isEmpty { return value }
    return nil
  }
}

public enum PostgresPasswordError: Error, Sendable, Hashable, CustomStringConvertible {
  case both
  case unreadableFile(String)
  case emptyFile(String)

  public var description: String {
    switch self {
    case .both:
      "both \(PostgresPassword.variable) and \(PostgresPassword.fileVariable) are set: keep one"
    case .unreadableFile(let path):
      "cannot read the PostgreSQL password file \(path) (\(PostgresPassword.fileVariable))"
    case .emptyFile(let path):
      "the PostgreSQL password file \(path) (\(PostgresPassword.fileVariable)) is empty"
    }
  }
}

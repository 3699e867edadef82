/// The file a database connection opened, and a way to tell whether its path still names it.
public struct DatabaseFile: Sendable {
  public let path: String
  /// The file's identity when it was opened; nil for a database without a file of its own.
  public let opened: FileIdentity?

  /// Remembers what `path` names now: call it right after opening.
  public init(path: String) {
    self.path = path
    self.opened = FileIdentity.of(path: path)
  }

  /// Why the path no longer names the opened file, or nil while it still does. One stat(2).
  public func problem() -> DatabaseFileError? {
    guard let opened else { return nil }
    guard let now = FileIdentity.of(path: path) else { return .deleted(path) }
    return now == opened ? nil : .replaced(path, opened: opened, now: now)
  }
}

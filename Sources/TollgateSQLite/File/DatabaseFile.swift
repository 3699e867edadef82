import Synchronization

/// The file a database connection opened, and a way to tell whether its path still names it,
/// and whether its write-ahead log (`-wal`) and shared-memory index (`-shm`) are still the ones
/// the connection uses.
///
/// In WAL mode a commit is durable in the `-wal` file until a checkpoint copies it into the
/// database. While a process has the database open, SQLite never deletes or replaces these two
/// files (only the last connection to close removes them), so once seen, each must keep its
/// identity. If someone deletes them under running processes, every commit after that goes into
/// an unlinked file that a restart (or any process that opens the database afresh) never reads:
/// acknowledged writes are lost (issue 24).
public struct DatabaseFile: Sendable {
  public let path: String
  /// The file's identity when it was opened; nil for a database without a file of its own.
  public let opened: FileIdentity?
  /// The identities of the `-wal` and `-shm` files, remembered when first seen (after the
  /// connection's first transaction: opening runs the migrations), so never one that another
  /// process's last close was about to remove.
  private let sidecars: Sidecars

  /// Remembers what `path` names now: call it right after opening.
  public init(path: String) {
    self.path = path
    self.opened = FileIdentity.of(path: path)
    self.sidecars = Sidecars()
  }

  /// Why the path no longer names the opened file, or its `-wal`/`-shm` no longer the ones in
  /// use, or nil while all is well. A stat(2) per file.
  public func problem() -> DatabaseFileError? {
    guard let opened else { return nil }
    guard let now = FileIdentity.of(path: path) else { return .deleted(path) }
    if now != opened { return .replaced(path, opened: opened, now: now) }
    return sidecarProblem(mustExist: false)
  }

  /// After a commit (WAL mode): the commit is in the `-wal` file, which must exist and be the one
  /// seen before. A problem here means the commit just made is in a file nobody will read again:
  /// it must not be acknowledged.
  public func problemAfterCommit() -> DatabaseFileError? {
    guard opened != nil else { return nil }
    return problem() ?? sidecarProblem(mustExist: true)
  }

  private func sidecarProblem(mustExist: Bool) -> DatabaseFileError? {
    for suffix in ["-wal", "-shm"] {
      let sidecarPath = path + suffix
      let now = FileIdentity.of(path: sidecarPath)
      let seen = sidecars.identities.withLock { seen -> FileIdentity? in
        if seen[suffix] == nil, let now { seen[suffix] = now }
        return seen[suffix]
      }
      switch (seen, now) {
      case (.some, nil): return .sidecarDeleted(sidecarPath, database: path)
      case (let seen?, let now?) where seen != now:
        return .sidecarReplaced(sidecarPath, database: path, opened: seen, now: now)
      case (nil, nil) where mustExist && suffix == "-wal":
        return .sidecarDeleted(sidecarPath, database: path)
      default: continue
      }
    }
    return nil
  }

  /// Shared by the copies of one `DatabaseFile`: what each sidecar file was when first seen.
  private final class Sidecars: Sendable {
    let identities = Mutex<[String: FileIdentity]>([:])
  }
}

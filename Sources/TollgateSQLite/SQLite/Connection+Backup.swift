import CSQLite

extension Connection {
  /// Copies this database into the file at `path` with SQLite's online backup, in one step:
  /// a consistent copy while other connections keep writing.
  public func backup(to path: String) throws(DatabaseError) {
    let target = try Connection(path: path)
    try Self.copy(from: self, to: target)
  }

  /// Replaces this database's content with the copy at `path` (an online restore): the file
  /// keeps its identity, and every other connection sees the restored content at once.
  public func restore(from path: String) throws(DatabaseError) {
    let source = try Connection(path: path, options: Options(create: false))
    try Self.copy(from: source, to: self)
  }

  private static func copy(from source: Connection, to target: Connection) throws(DatabaseError) {
    guard let backup = sqlite3_backup_init(target.handle, "main", source.handle, "main") else {
      throw DatabaseError(code: sqlite3_errcode(target.handle), message: target.lastErrorMessage)
    }
    let step = sqlite3_backup_step(backup, -1)
    let finish = sqlite3_backup_finish(backup)
    guard step == SQLITE_DONE, finish == SQLITE_OK else {
      throw DatabaseError(code: step == SQLITE_DONE ? finish : step, message: target.lastErrorMessage)
    }
  }
}

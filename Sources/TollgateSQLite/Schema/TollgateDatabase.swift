/// Opening Tollgate's database: who may create one, and the schema brought up to date.
public enum TollgateDatabase {
  /// Opens the database at `path` on a serialized connection and applies pending migrations.
  /// Without `options.create`, the file must exist and already carry Tollgate's schema: a mistyped
  /// path fails with a `DatabaseFileError` naming it (whose message ends with `hint`) instead of
  /// becoming an empty database that entitles nobody.
  public static func open(
    path: String, options: Connection.Options = Connection.Options(), label: String, nowMs: Int64,
    hint: String = "check the path (`tollgate worker --create` and `tollgate serve --create` create one)"
  ) throws -> SerializedConnection {
    if !options.create, FileIdentity.of(path: path) == nil { throw DatabaseFileError.missing(path, hint: hint) }
    let connection = try SerializedConnection(path: path, options: options, label: label)
    try connection.readSync { db in
      if !options.create, try !Self.hasSchema(db) { throw DatabaseFileError.notTollgate(path, hint: hint) }
      try Schema.migrator.migrate(db, nowMs: nowMs)
    }
    // The migrations' transactions opened the `-wal` and `-shm` files: remember which they are.
    _ = connection.file.problem()
    return connection
  }

  static func hasSchema(_ db: Connection) throws -> Bool {
    try !db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tollgate_migrations'").rows([]) {
      $0.int64(at: 0)
    }.isEmpty
  }
}

/// Applies named migrations once each, in registration order, recording them in
/// `tollgate_migrations`. Safe when several processes start at once: each migration runs in its own
/// `BEGIN IMMEDIATE` transaction and is skipped if another process applied it first.
public struct Migrator: Sendable {
  public typealias Body = @Sendable (Connection) throws -> Void
  private var migrations: [(identifier: String, body: Body)] = []

  public init() {}

  public mutating func register(_ identifier: String, _ body: @escaping Body) {
    precondition(!migrations.contains { $0.identifier == identifier }, "duplicate migration \(identifier)")
    migrations.append((identifier, body))
  }

  public var identifiers: [String] { migrations.map(\.identifier) }

  /// Applies what is missing; returns the identifiers it applied. A database that records
  /// migrations this migrator does not know was upgraded by a newer Tollgate: it is refused
  /// (`DatabaseFileError.Code.schemaNewer`) before anything is applied, as on PostgreSQL.
  @discardableResult
  public func migrate(_ connection: Connection, nowMs: Int64) throws -> [String] {
    try connection.execute(
      """
      CREATE TABLE IF NOT EXISTS tollgate_migrations (
        identifier TEXT PRIMARY KEY NOT NULL,
        applied_at_ms INTEGER NOT NULL
      )
      """)
    let known = Set(identifiers)
    let unknown = try Self.appliedIdentifiers(connection).filter { !known.contains($0) }
    guard unknown.isEmpty else { throw DatabaseFileError.schemaNewer(connection.path, unknown: unknown) }
    var applied: [String] = []
    for migration in migrations {
      let didApply = try connection.transaction { db in
        let check = try db.prepare("SELECT 1 FROM tollgate_migrations WHERE identifier = ?")
        try check.bind([.text(migration.identifier)])
        if try check.step() { return false }
        try migration.body(db)
        try db.execute(
          "INSERT INTO tollgate_migrations (identifier, applied_at_ms) VALUES (?, ?)",
          [.text(migration.identifier), .integer(nowMs)])
        return true
      }
      if didApply { applied.append(migration.identifier) }
    }
    return applied
  }

  /// Identifiers recorded as applied in the database, oldest first.
  public static func appliedIdentifiers(_ connection: Connection) throws -> [String] {
    try connection.prepare("SELECT identifier FROM tollgate_migrations ORDER BY rowid").rows { $0.string(at: 0) }
  }
}

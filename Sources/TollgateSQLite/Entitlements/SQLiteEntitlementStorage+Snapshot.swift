import CSQLite
import TollgateCore
import TollgateStorage

/// The snapshot read for a load at scale: the rows in place, from both ends of the table at once.
extension SQLiteEntitlementStorage {
  /// Reads the table from both ends at once when `ends` is 2: the first end in key order on the
  /// reader connection (after counting the rows for `builder.expect`), the other backwards on a
  /// connection opened for this read, until the builder's sinks meet. Each end reads in a
  /// transaction of its own; the lower of their heads is returned (a record read by the later one
  /// may be newer; the feed after that head names its user again).
  public func readSnapshot(into builder: any EntitlementSnapshotBuilder, ends: Int) async throws -> Int64 {
    guard ends > 1 else {
      return try await reader.read { db in try Self.readEnd(db, into: builder, descending: false, count: true) }
    }
    let other = try SerializedConnection(
      path: path, options: Connection.Options(create: false), label: "tollgate.sqlite.snapshot")
    async let forwards = reader.read { db in try Self.readEnd(db, into: builder, descending: false, count: true) }
    async let backwards = other.read { db in try Self.readEnd(db, into: builder, descending: true, count: false) }
    let (first, second) = try await (forwards, backwards)
    return min(first, second)
  }

  /// One end of the read, in one transaction: its head, after the rows went into a sink.
  static func readEnd(
    _ db: Connection, into builder: any EntitlementSnapshotBuilder, descending: Bool, count: Bool
  ) throws -> Int64 {
    try db.execute("BEGIN")
    defer { try? db.execute("COMMIT") }
    let head = try headSeq(db)
    if count {
      let counting = try db.prepare("SELECT count(*) FROM entitlements")
      _ = try counting.step()
      builder.expect(rows: Int(counting.int64(at: 0)))
    }
    let order = descending ? "user_id DESC, entitlement DESC, source DESC" : "user_id, entitlement, source"
    let statement = try db.prepare("SELECT \(recordColumns) FROM entitlements ORDER BY \(order)")
    let sink = builder.makeSink(descending: descending)
    let decoder = RowDecoder()
    while try statement.step() {
      guard sink.take(decoder.row(statement)) else { return head }
    }
    sink.finish()
    return head
  }

  /// Decodes a row selected with `recordColumns` in place, as `record(_:)` does (unknown names
  /// read the same conservative way).
  struct RowDecoder {
    let stores = VocabularyBytes<Store>()
    let environments = VocabularyBytes<StoreEnvironment>()
    let states = VocabularyBytes<SubscriptionState>()
    let reasons = VocabularyBytes<StateReason>()

    func row(_ row: Statement) -> EntitlementRowView {
      EntitlementRowView(
        userId: row.bytes(at: 0), entitlement: row.bytes(at: 1), source: row.bytes(at: 2),
        productId: row.bytes(at: 4), replaces: row.bytes(at: 12),
        store: stores.name(row.bytes(at: 3)) ?? .promotional,
        environment: environments.name(row.bytes(at: 5)) ?? .production,
        state: states.name(row.bytes(at: 6)) ?? .expired, reason: reasons.name(row.bytes(at: 11)),
        willRenew: row.bool(at: 7), expiresAtMs: row.int64(at: 8), accessEndsAtMs: row.int64(at: 9),
        verifiedAtMs: row.int64(at: 10))
    }
  }
}

extension Statement {
  /// Column `column` of the current row as text bytes, in place: valid until the next step.
  func bytes(at column: Int32) -> UnsafeRawBufferPointer {
    guard let text = sqlite3_column_text(handle, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
  }
}

import CSQLite

/// A connection's compiled statements kept for reuse, by their SQL: the worker runs the same few
/// dozen statements for every purchase and notification, and compiling one (parsing, name
/// resolution, code generation) cost more than running it. A `Statement` takes a compiled handle
/// for its SQL when one is here (so a statement in use is never handed out twice: the same SQL
/// prepared again meanwhile, a query inside another's rows, compiles a new one) and gives it back,
/// reset and with its bindings cleared, when it ends. Confined to its connection's thread, as the
/// connection is.
final class PreparedStatements {
  /// The most handles kept; past it a handle given back is finalized.
  static let limit = 128

  private var idle: [String: [OpaquePointer]] = [:]
  private var count = 0

  /// A compiled handle for `sql`, if one is kept.
  func take(_ sql: String) -> OpaquePointer? {
    guard let handle = idle[sql]?.popLast() else { return nil }
    count -= 1
    return handle
  }

  /// Keeps `handle` (compiled from `sql`) for the next `take`, reset and unbound, or finalizes it
  /// when `limit` are kept already.
  func give(_ handle: OpaquePointer, sql: String) {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
    guard count < Self.limit else {
      sqlite3_finalize(handle)
      return
    }
    idle[sql, default: []].append(handle)
    count += 1
  }

  /// Finalizes every kept handle: before the connection closes.
  func finalizeAll() {
    for handles in idle.values {
      for handle in handles { sqlite3_finalize(handle) }
    }
    idle = [:]
    count = 0
  }
}

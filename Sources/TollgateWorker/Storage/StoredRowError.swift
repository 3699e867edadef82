/// A stored row that does not decode (written by another version, edited by hand, damaged).
/// Nothing is computed from it: the user's recompute stops with this error, their entitlements
/// stay as they are, and the row waits for an operator. It never reads as an empty history. Every
/// storage (SQLite, PostgreSQL) throws this one.
public struct StoredRowError: Error, Sendable, CustomStringConvertible {
  public let table: String
  /// Which row: `store/purchase id` for a subscription.
  public let key: String
  public let message: String

  public init(table: String, key: String, problem: String) {
    self.table = table
    self.key = key
    self.message =
      "the stored \(table) row \(key) does not decode (\(problem)); nothing is recomputed from it and the user's "
      + "entitlements stay as they are: repair the row, or re-verify it from the store"
  }

  public var description: String { message }
}

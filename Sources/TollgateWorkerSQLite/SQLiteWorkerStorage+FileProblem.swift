import TollgateSQLite
import TollgateStorage

extension SQLiteWorkerStorage {
  /// Why writes cannot be trusted: the database file was deleted or replaced after it was opened.
  /// Every write checks the same (`SerializedConnection.write` throws a `DatabaseFileError`).
  public func storageProblem() async -> String? {
    // On the connection's queue: a stat, kept off the cooperative pool like every file access.
    let file = writer.file
    return try? await writer.read { _ in file.problem()?.message }
  }
}

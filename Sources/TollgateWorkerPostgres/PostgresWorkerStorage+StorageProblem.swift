import TollgateWorker

extension PostgresWorkerStorage {
  // MARK: Storage problem

  /// Nil: on PostgreSQL there is no file that can be deleted or replaced under an open handle (the
  /// condition SQLite reports here). A database that cannot be reached fails each read and write
  /// with its own error, which the worker reports and retries; a database restored to an older
  /// state is told by its id (`database_meta`), which the service's follower checks.
  public func storageProblem() async -> String? { nil }
}

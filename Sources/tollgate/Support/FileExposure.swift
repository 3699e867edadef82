import Logging
import TollgateStorageFactory

/// At start, what `serve` and `worker` say about files of theirs that others can read (issue 25
/// item 7). Tollgate creates its files 0600; an existing database made by an older version, a
/// copy or a restore may be 0644, and then any local user reads the receipt ids and user ids a
/// claim presents.
enum FileExposure {
  /// One warning per file of the storage (an SQLite database and its `-wal` and `-shm`) that
  /// anyone but its owner may read or write; none for a storage that is no file.
  static func warn(database location: StorageLocation, logger: Logger) {
    for file in location.exposedFiles {
      logger.warning(
        "a database file is readable or writable by other users of this host: it holds receipt ids, purchase tokens and user ids; make it 0600 (chmod 600, with its -wal and -shm)",
        metadata: ["file.path": "\(file.path)", "file.mode": "\(file.octalMode)"])
    }
  }
}

import ArgumentParser
import Foundation
import Logging
import TollgateCore
import TollgateStorageFactory

/// `tollgate migrate-storage`: copies a whole Tollgate database between SQLite and PostgreSQL.
struct MigrateStorage: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "migrate-storage",
    abstract: "Copy a whole Tollgate database from SQLite to PostgreSQL (or back), counts checked.",
    discussion: """
      Copies every table (subscriptions, transactions, entitlements, the change feed, the inbox, \
      grants, events, webhook cursors and parked events, the catalog, leases, store health) with \
      its ids, in foreign-key order, in batches. The target's id sequences are then set past the \
      highest id copied, so a new row never reuses one, and every table's row count on the target \
      is checked against the source's. Any error or count mismatch rolls the whole copy back and \
      exits non-zero: the target is left without data (an empty schema, which a new run accepts).

      Either side is an SQLite file (a path or sqlite:PATH) or a PostgreSQL database \
      (postgres://USER@HOST:PORT/DATABASE?sslmode=MODE, or ?host=/socket/dir&port=N; the \
      password from TOLLGATE_DATABASE_PASSWORD or TOLLGATE_DATABASE_PASSWORD_FILE, never the URL). \
      SQLite to SQLite and PostgreSQL to PostgreSQL work too.

      Before you run it: stop every worker (and anything else that writes: admin commands, \
      `seed`) on the source. The source is read in one snapshot, so the copy is consistent, but \
      what is written after the snapshot is not in it. `serve` replicas may keep answering from \
      the source while it runs; point them at the target and restart them afterwards, then start \
      the workers on the target. A sign of a running worker (a fresh lease) is printed as a warning.

      The source is never changed, and never upgraded: it must be at this version's schema (if an \
      older Tollgate last opened it, start this version's worker on it once, stop it, then copy). \
      The target must hold no Tollgate data: a new SQLite file, or a PostgreSQL database that is \
      empty or holds only an empty Tollgate schema at this version; anything else is refused and \
      left untouched.

      The copy keeps the source's database id (database_meta): it is the same data, moved, as a \
      backup copy keeps it too. Replicas reload when the id behind their feed changes; a replica \
      is restarted to move to the target anyway, and the change feed's numbers go on where the \
      source's stopped. Do not keep writing to both copies afterwards: retire the source.

      Progress is reported per table on stderr; the row count of each table on stdout at the end.
      """)

  @Option(help: "The database to copy from: an SQLite path (or sqlite:PATH) or a postgres:// URL.")
  var from: String

  @Option(help: "The database to copy into (created if missing; must hold no Tollgate data).")
  var to: String

  @Option(help: "Rows read and written per batch.")
  var batchSize = 1_000

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
  }

  func run() async throws {
    let logger = logging.makeLogger(label: "tollgate.migrate-storage")
    let source = try StorageLocation(from)
    let target = try StorageLocation(to)
    FileHandle.standardError.write(Data("copying \(source) to \(target)\n".utf8))
    let reporter = ProgressReporter(batchSize: Int64(batchSize))
    let report = try await StorageMigration.run(
      from: source, to: target, environment: ProcessInfo.processInfo.environment, nowMs: SystemClock.nowMs(),
      batchSize: batchSize, logger: logger, progress: reporter.report)
    for warning in report.warnings {
      FileHandle.standardError.write(
        Data("warning: a worker may have been running on the source (\(warning)): stop it, then copy again\n".utf8))
    }
    for table in report.tables { print("\(table.table) \(table.rows)") }
    print("copied \(report.tables.reduce(0) { $0 + $1.rows }) rows into \(target); counts checked")
  }
}

/// Writes a table's progress on stderr: when it starts, every 100,000 rows, and when it is done.
private struct ProgressReporter: Sendable {
  let batchSize: Int64

  func report(_ progress: StorageMigrationProgress) {
    let line: String
    if progress.copied == 0 {
      line = "\(progress.table): \(progress.total) rows"
    } else if progress.copied == progress.total {
      line = "\(progress.table): \(progress.copied)/\(progress.total) copied"
    } else if progress.copied / 100_000 > (progress.copied - batchSize) / 100_000 {
      line = "\(progress.table): \(progress.copied)/\(progress.total)"
    } else {
      return
    }
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }
}

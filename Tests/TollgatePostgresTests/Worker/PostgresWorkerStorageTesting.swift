import Logging
import TollgatePostgres
import TollgateTesting
import TollgateWorkerPostgres

/// A fresh database on the test server for each test, with two storages (two workers: each on a
/// pool of its own, as two processes would be).
enum PostgresWorkerDatabase {
  static let logger = Logger(label: "test.postgres.worker")

  static func withTwoStorages<T: Sendable>(
    _ hint: String = #function, _ body: (PostgresWorkerStorage, PostgresWorkerStorage) async throws -> T
  ) async throws -> T {
    let location = try await TestPostgres.freshDatabase(hint)
    return try await PostgresTollgateDatabase.open(
      location, environment: [:], nowMs: 1, create: true, maximumConnections: 4, logger: logger
    ) { first in
      try await PostgresTollgateDatabase.open(
        location, environment: [:], nowMs: 1, create: false, maximumConnections: 4, logger: logger
      ) { second in
        try await body(
          PostgresWorkerStorage(database: first, logger: logger),
          PostgresWorkerStorage(database: second, logger: logger))
      }
    }
  }
}

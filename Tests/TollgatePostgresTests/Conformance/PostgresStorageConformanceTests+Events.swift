import Testing
import TollgateTesting

// MARK: Grant events and the catalog

extension PostgresStorageConformanceTests {
  @Test func grantEvents() async throws {
    try await WorkerStorageConformance.grantEvents(Self.postgres)
  }

  @Test func freshDatabasesNeverReuseEventIds() async throws {
    try await WorkerStorageConformance.freshDatabasesNeverReuseEventIds(Self.postgres)
  }

  @Test func concurrentGrantsOfOneUser() async throws {
    try await WorkerStorageConformance.concurrentGrantsOfOneUser(Self.postgres)
  }

  @Test func catalogSavedOncePerDatabase() async throws {
    try await WorkerStorageConformance.catalogSavedOncePerDatabase(Self.postgres)
  }
}

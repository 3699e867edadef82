import Testing
import TollgateTesting

// MARK: Grant events and the catalog

extension SQLiteStorageConformanceTests {
  @Test func grantEvents() async throws {
    try await WorkerStorageConformance.grantEvents(Self.sqlite)
  }

  @Test func freshDatabasesNeverReuseEventIds() async throws {
    try await WorkerStorageConformance.freshDatabasesNeverReuseEventIds(Self.sqlite)
  }

  @Test func concurrentGrantsOfOneUser() async throws {
    try await WorkerStorageConformance.concurrentGrantsOfOneUser(Self.sqlite)
  }

  @Test func catalogSavedOncePerDatabase() async throws {
    try await WorkerStorageConformance.catalogSavedOncePerDatabase(Self.sqlite)
  }
}

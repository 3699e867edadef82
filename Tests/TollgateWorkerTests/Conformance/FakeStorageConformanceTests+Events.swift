import Testing
import TollgateTesting

// MARK: Grant events and the catalog

extension FakeStorageConformanceTests {
  @Test(.disabled("the fake numbers its events from 2 and stores no affected entitlements with them"))
  func grantEvents() async throws {
    try await WorkerStorageConformance.grantEvents(Self.fake)
  }

  @Test(.disabled("the fake numbers its events from 2, with UUIDs from the same counter"))
  func freshDatabasesNeverReuseEventIds() async throws {
    try await WorkerStorageConformance.freshDatabasesNeverReuseEventIds(Self.fake)
  }

  @Test(.disabled("the fake numbers its events two apart, not one by one"))
  func concurrentGrantsOfOneUser() async throws {
    try await WorkerStorageConformance.concurrentGrantsOfOneUser(Self.fake)
  }

  @Test func catalogSavedOncePerDatabase() async throws {
    try await WorkerStorageConformance.catalogSavedOncePerDatabase(Self.fake)
  }
}

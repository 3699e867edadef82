import Testing
import TollgateTesting

// MARK: Request ids

extension PostgresStorageConformanceTests {
  @Test func notificationRequestIds() async throws {
    try await WorkerStorageConformance.notificationRequestIds(Self.postgres)
  }

  @Test
  func submissionRequestIds() async throws {
    try await WorkerStorageConformance.submissionRequestIds(Self.postgres)
  }

  @Test func eventRequestIds() async throws {
    try await WorkerStorageConformance.eventRequestIds(Self.postgres)
  }
}

import Testing
import TollgateTesting

// MARK: Request ids

extension SQLiteStorageConformanceTests {
  @Test func notificationRequestIds() async throws {
    try await WorkerStorageConformance.notificationRequestIds(Self.sqlite)
  }

  @Test
  func submissionRequestIds() async throws {
    try await WorkerStorageConformance.submissionRequestIds(Self.sqlite)
  }

  @Test func eventRequestIds() async throws {
    try await WorkerStorageConformance.eventRequestIds(Self.sqlite)
  }
}

import Testing
import TollgateTesting

// MARK: Request ids

extension FakeStorageConformanceTests {
  @Test func notificationRequestIds() async throws {
    try await WorkerStorageConformance.notificationRequestIds(Self.fake)
  }

  @Test(.disabled("the fake keeps no service view: submissions are the service's storage"))
  func submissionRequestIds() async throws {
    try await WorkerStorageConformance.submissionRequestIds(Self.fake)
  }

  @Test func eventRequestIds() async throws {
    try await WorkerStorageConformance.eventRequestIds(Self.fake)
  }
}

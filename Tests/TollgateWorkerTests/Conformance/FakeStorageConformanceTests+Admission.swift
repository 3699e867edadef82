import Testing
import TollgateTesting

// MARK: Submission admission

extension FakeStorageConformanceTests {
  @Test(.disabled("the fake keeps no service view: submissions are the service's storage"))
  func admissionCountedPerCallerAndUser() async throws {
    try await WorkerStorageConformance.admissionCountedPerCallerAndUser(Self.fake)
  }

  @Test(.disabled("the fake keeps no service view: submissions are the service's storage"))
  func admissionBoundHoldsAcrossHandles() async throws {
    try await WorkerStorageConformance.admissionBoundHoldsAcrossHandles(Self.fake)
  }
}

import Testing
import TollgateTesting

// MARK: Submission admission

extension PostgresStorageConformanceTests {
  @Test func admissionCountedPerCallerAndUser() async throws {
    try await WorkerStorageConformance.admissionCountedPerCallerAndUser(Self.postgres)
  }

  @Test func admissionBoundHoldsAcrossHandles() async throws {
    try await WorkerStorageConformance.admissionBoundHoldsAcrossHandles(Self.postgres)
  }
}

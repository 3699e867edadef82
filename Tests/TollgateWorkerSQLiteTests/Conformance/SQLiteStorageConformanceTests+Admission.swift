import Testing
import TollgateTesting

// MARK: Submission admission

extension SQLiteStorageConformanceTests {
  @Test func admissionCountedPerCallerAndUser() async throws {
    try await WorkerStorageConformance.admissionCountedPerCallerAndUser(Self.sqlite)
  }

  @Test func admissionBoundHoldsAcrossHandles() async throws {
    try await WorkerStorageConformance.admissionBoundHoldsAcrossHandles(Self.sqlite)
  }
}

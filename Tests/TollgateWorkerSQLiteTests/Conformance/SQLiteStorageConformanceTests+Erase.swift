import Testing
import TollgateTesting

// MARK: GDPR erase (issue 28)

extension SQLiteStorageConformanceTests {
  @Test func eraseRemovesTheUser() async throws {
    try await WorkerStorageConformance.eraseRemovesTheUser(Self.sqlite)
  }

  @Test func eraseDryRunWritesNothing() async throws {
    try await WorkerStorageConformance.eraseDryRunWritesNothing(Self.sqlite)
  }

  @Test func eraseLeavesNothingOfTheUser() async throws {
    try await WorkerStorageConformance.eraseLeavesNothingOfTheUser(Self.sqlite)
  }

  @Test func eraseSerialisesWithApply() async throws {
    try await WorkerStorageConformance.eraseSerialisesWithApply(Self.sqlite)
  }

  @Test func erasesAndGrantsAtOnce() async throws {
    try await WorkerStorageConformance.erasesAndGrantsAtOnce(Self.sqlite)
  }
}

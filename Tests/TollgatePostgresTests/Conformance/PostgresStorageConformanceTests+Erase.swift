import Testing
import TollgateTesting

// MARK: GDPR erase (issue 28)

extension PostgresStorageConformanceTests {
  @Test func eraseRemovesTheUser() async throws {
    try await WorkerStorageConformance.eraseRemovesTheUser(Self.postgres)
  }

  @Test func eraseDryRunWritesNothing() async throws {
    try await WorkerStorageConformance.eraseDryRunWritesNothing(Self.postgres)
  }

  @Test func eraseLeavesNothingOfTheUser() async throws {
    try await WorkerStorageConformance.eraseLeavesNothingOfTheUser(Self.postgres)
  }

  @Test func eraseSerialisesWithApply() async throws {
    try await WorkerStorageConformance.eraseSerialisesWithApply(Self.postgres)
  }

  @Test func erasesAndGrantsAtOnce() async throws {
    try await WorkerStorageConformance.erasesAndGrantsAtOnce(Self.postgres)
  }
}

import Testing
import TollgateTesting

// MARK: GDPR erase (issue 28)

extension FakeStorageConformanceTests {
  @Test func eraseRemovesTheUser() async throws {
    try await WorkerStorageConformance.eraseRemovesTheUser(Self.fake)
  }

  @Test func eraseDryRunWritesNothing() async throws {
    try await WorkerStorageConformance.eraseDryRunWritesNothing(Self.fake)
  }

  @Test(.disabled("the fake has no tables to search and keeps no change feed"))
  func eraseLeavesNothingOfTheUser() async throws {
    try await WorkerStorageConformance.eraseLeavesNothingOfTheUser(Self.fake)
  }

  @Test func eraseSerialisesWithApply() async throws {
    try await WorkerStorageConformance.eraseSerialisesWithApply(Self.fake)
  }

  @Test func erasesAndGrantsAtOnce() async throws {
    try await WorkerStorageConformance.erasesAndGrantsAtOnce(Self.fake)
  }
}

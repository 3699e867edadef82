import Testing
import TollgateTesting

// MARK: Inbox claims and fencing tokens

extension PostgresStorageConformanceTests {
  @Test func renewedClaimIsNotTakenOver() async throws {
    try await WorkerStorageConformance.renewedClaimIsNotTakenOver(Self.postgres)
  }

  @Test func claimExcludesOwnRunningItems() async throws {
    try await WorkerStorageConformance.claimExcludesOwnRunningItems(Self.postgres)
  }

  @Test func lostClaimCannotFinishOrRetry() async throws {
    try await WorkerStorageConformance.lostClaimCannotFinishOrRetry(Self.postgres)
  }

  @Test func lostClaimApplyWritesNothing() async throws {
    try await WorkerStorageConformance.lostClaimApplyWritesNothing(Self.postgres)
  }

  @Test func retryAndFinishEndTheClaim() async throws {
    try await WorkerStorageConformance.retryAndFinishEndTheClaim(Self.postgres)
  }

  @Test func racingClaimsAndFinishesEndEachItemOnce() async throws {
    try await WorkerStorageConformance.racingClaimsAndFinishesEndEachItemOnce(Self.postgres)
  }
}

import Testing
import TollgateTesting

// MARK: Inbox claims and fencing tokens

extension SQLiteStorageConformanceTests {
  @Test func renewedClaimIsNotTakenOver() async throws {
    try await WorkerStorageConformance.renewedClaimIsNotTakenOver(Self.sqlite)
  }

  @Test func claimExcludesOwnRunningItems() async throws {
    try await WorkerStorageConformance.claimExcludesOwnRunningItems(Self.sqlite)
  }

  @Test func lostClaimCannotFinishOrRetry() async throws {
    try await WorkerStorageConformance.lostClaimCannotFinishOrRetry(Self.sqlite)
  }

  @Test func lostClaimApplyWritesNothing() async throws {
    try await WorkerStorageConformance.lostClaimApplyWritesNothing(Self.sqlite)
  }

  @Test func retryAndFinishEndTheClaim() async throws {
    try await WorkerStorageConformance.retryAndFinishEndTheClaim(Self.sqlite)
  }

  @Test func racingClaimsAndFinishesEndEachItemOnce() async throws {
    try await WorkerStorageConformance.racingClaimsAndFinishesEndEachItemOnce(Self.sqlite)
  }
}

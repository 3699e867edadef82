import Testing
import TollgateTesting

// MARK: Inbox claims and fencing tokens

extension FakeStorageConformanceTests {
  @Test func renewedClaimIsNotTakenOver() async throws {
    try await WorkerStorageConformance.renewedClaimIsNotTakenOver(Self.fake)
  }

  @Test func claimExcludesOwnRunningItems() async throws {
    try await WorkerStorageConformance.claimExcludesOwnRunningItems(Self.fake)
  }

  @Test func lostClaimCannotFinishOrRetry() async throws {
    try await WorkerStorageConformance.lostClaimCannotFinishOrRetry(Self.fake)
  }

  @Test func lostClaimApplyWritesNothing() async throws {
    try await WorkerStorageConformance.lostClaimApplyWritesNothing(Self.fake)
  }

  @Test func retryAndFinishEndTheClaim() async throws {
    try await WorkerStorageConformance.retryAndFinishEndTheClaim(Self.fake)
  }

  @Test func racingClaimsAndFinishesEndEachItemOnce() async throws {
    try await WorkerStorageConformance.racingClaimsAndFinishesEndEachItemOnce(Self.fake)
  }
}

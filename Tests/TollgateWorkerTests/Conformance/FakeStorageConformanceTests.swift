import Testing
import TollgateTesting

/// The storage conformance suite (`WorkerStorageConformance`) against the in-memory fake the
/// worker's unit tests use: one database is one actor, and every handle on it is that actor.
/// Cases that need what the fake does not have are listed disabled, with the reason.
@Suite("Storage conformance: the fake")
struct FakeStorageConformanceTests {
  static let fake = WorkerStorageUnderTest(name: "fake") {
    let storage = FakeWorkerStorage()
    return ConformanceDatabase(storage: storage, openHandle: { storage })
  }

  // MARK: Inbox

  @Test func deduplicatesNotifications() async throws {
    try await WorkerStorageConformance.deduplicatesNotifications(Self.fake)
  }

  @Test func claimExpiry() async throws { try await WorkerStorageConformance.claimExpiry(Self.fake) }

  @Test func concurrentClaimsHandEachItemOnce() async throws {
    try await WorkerStorageConformance.concurrentClaimsHandEachItemOnce(Self.fake)
  }

  @Test func oldestUnfinishedInboxItem() async throws {
    try await WorkerStorageConformance.oldestUnfinishedInboxItem(Self.fake)
  }

  // MARK: Atomicity

  @Test func applyIsSeenWholeFromAnotherHandle() async throws {
    try await WorkerStorageConformance.applyIsSeenWholeFromAnotherHandle(Self.fake)
  }

  @Test(.disabled("the fake keys no record, so nothing makes its apply fail part-way"))
  func failedApplyWritesNothing() async throws {
    try await WorkerStorageConformance.failedApplyWritesNothing(Self.fake)
  }

  // MARK: Order

  @Test func eventOrderUnderConcurrentWriters() async throws {
    try await WorkerStorageConformance.eventOrderUnderConcurrentWriters(Self.fake)
  }

  @Test(.disabled("the fake keeps no change feed"))
  func feedOrderUnderConcurrentWriters() async throws {
    try await WorkerStorageConformance.feedOrderUnderConcurrentWriters(Self.fake)
  }

  // MARK: Prune

  @Test func pruneKeepsWhatIsUnread() async throws {
    try await WorkerStorageConformance.pruneKeepsWhatIsUnread(Self.fake)
  }

  @Test func pruneNeverReusesEventIds() async throws {
    try await WorkerStorageConformance.pruneNeverReusesEventIds(Self.fake)
  }

  // MARK: Undecodable rows

  @Test(.disabled("the fake stores values, not encodings: no row of it can fail to decode"))
  func undecodableRowsNeverReadAsMissing() async throws {
    try await WorkerStorageConformance.undecodableRowsNeverReadAsMissing(Self.fake)
  }

  // MARK: Versions

  @Test func versionsCountWrites() async throws {
    try await WorkerStorageConformance.versionsCountWrites(Self.fake)
  }

  @Test func olderReadNeverOverwritesNewerWrite() async throws {
    try await WorkerStorageConformance.olderReadNeverOverwritesNewerWrite(Self.fake)
  }

  @Test func concurrentWritesOfOneReadLandOnce() async throws {
    try await WorkerStorageConformance.concurrentWritesOfOneReadLandOnce(Self.fake)
  }

  @Test func twoChainsOfOneUserWrittenAtOnce() async throws {
    try await WorkerStorageConformance.twoChainsOfOneUserWrittenAtOnce(Self.fake)
  }

  // MARK: Due checks

  @Test func renewedCheckClaimIsNotTakenOver() async throws {
    try await WorkerStorageConformance.renewedCheckClaimIsNotTakenOver(Self.fake)
  }

  @Test func claimedCheckIsDueToNobodyElse() async throws {
    try await WorkerStorageConformance.claimedCheckIsDueToNobodyElse(Self.fake)
  }

  @Test func applyEndsTheCheckClaim() async throws {
    try await WorkerStorageConformance.applyEndsTheCheckClaim(Self.fake)
  }

  @Test func concurrentClaimsHandEachCheckOnce() async throws {
    try await WorkerStorageConformance.concurrentClaimsHandEachCheckOnce(Self.fake)
  }

  @Test(.disabled("the fake stores values, not encodings: no row of it can fail to decode"))
  func undecodableDueCheckIsPutOff() async throws {
    try await WorkerStorageConformance.undecodableDueCheckIsPutOff(Self.fake)
  }
}

import Testing
import TollgateTesting

// MARK: A follower's catch-up in one call

extension FakeStorageConformanceTests {
  @Test(.disabled("the fake keeps no change feed"))
  func catchUpReadsWhatTheFourCallsRead() async throws {
    try await WorkerStorageConformance.catchUpReadsWhatTheFourCallsRead(Self.fake)
  }
}

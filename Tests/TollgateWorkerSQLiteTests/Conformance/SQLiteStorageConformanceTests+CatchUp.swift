import Testing
import TollgateTesting

// MARK: A follower's catch-up in one call

extension SQLiteStorageConformanceTests {
  @Test func catchUpReadsWhatTheFourCallsRead() async throws {
    try await WorkerStorageConformance.catchUpReadsWhatTheFourCallsRead(Self.sqlite)
  }
}

import Testing
import TollgateTesting

// MARK: A follower's catch-up in one call

extension PostgresStorageConformanceTests {
  @Test func catchUpReadsWhatTheFourCallsRead() async throws {
    try await WorkerStorageConformance.catchUpReadsWhatTheFourCallsRead(Self.postgres)
  }
}

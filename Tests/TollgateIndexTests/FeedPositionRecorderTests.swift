import Logging
import Testing
import TollgateCore
import TollgateIndex
import TollgateSQLite
import TollgateStorage
import TollgateTesting

/// A replica's `FeedPositionRecorder` over SQLite: nothing before its index is loaded, then the
/// follower's applied position at the recorder's clock, in one row per reader id.
@Suite("Feed position recorder")
struct FeedPositionRecorderTests {
  static func rows(_ path: String) throws -> [[Int64]] {
    try Connection(path: path).prepare("SELECT seq, seen_at_ms FROM feed_readers WHERE reader_id = 'r'").rows {
      [$0.int64(at: 0), $0.int64(at: 1)]
    }
  }

  @Test("nothing is recorded before the index is loaded; then the applied position, replaced as it moves")
  func recordsTheAppliedPosition() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let path = dir.file("db.sqlite")
    let storage = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    for user in ["a", "b"] {
      try await storage.replaceEntitlements(
        userId: user, with: [.sample(userId: user, expiresAtMs: 9_000)], reason: "t", nowMs: 1)
    }
    let clock = ManualClock(nowMs: 500)
    let follower = ChangeFeedFollower(
      storage: storage, index: EntitlementIndex(), nowMs: clock.function, logger: Logger(label: "t"))
    let recorder = FeedPositionRecorder(
      config: .init(readerId: "r", interval: .seconds(10)), follower: follower, storage: storage,
      nowMs: clock.function, logger: Logger(label: "t"))

    try await recorder.recordOnce()
    #expect(try Self.rows(path).isEmpty, "a replica that has not loaded reads no feed")

    try await follower.loadSnapshot()
    try await recorder.recordOnce()
    #expect(try Self.rows(path) == [[2, 500]])

    try await storage.replaceEntitlements(
      userId: "c", with: [.sample(userId: "c", expiresAtMs: 9_000)], reason: "t", nowMs: 1)
    _ = try await follower.poll()
    clock.advance(byMs: 10_000)
    try await recorder.recordOnce()
    #expect(try Self.rows(path) == [[3, 10_500]], "one row per reader, moved on")

    try await storage.removeFeedReader(readerId: "r")
    #expect(try Self.rows(path).isEmpty)
  }

  @Test("a reader id names the host and the process, and differs between runs")
  func readerIds() {
    let first = FeedPositionRecorder.readerId(host: "api-1", processId: 4242)
    let second = FeedPositionRecorder.readerId(host: "api-1", processId: 4242)
    #expect(first.hasPrefix("api-1:4242:"))
    #expect(first != second)
    #expect(FeedPositionRecorder.readerId(host: String(repeating: "h", count: 300), processId: nil).count < 100)
  }
}

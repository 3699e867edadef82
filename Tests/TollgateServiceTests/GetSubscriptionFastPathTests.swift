import Logging
import NIOCore
import Testing
import TollgateContract
import TollgateCore
import TollgateIndex
import TollgateSQLite
import TollgateService
import TollgateTesting
import TollgateWire

/// GetSubscription's fast path (`answerGetSubscription`, the request's bytes in, the response's
/// bytes out) against its message path (`getSubscription`, serialized by swift-protobuf), byte
/// for byte, over random users: both must answer every user alike, whatever the index holds.
@Suite("GetSubscription: the fast path writes the message path's bytes")
struct GetSubscriptionFastPathTests {
  /// A loaded responder over an index the test fills directly (the storage stays empty).
  struct Fixture {
    let dir: TemporaryDirectory
    let index: EntitlementIndex
    let follower: ChangeFeedFollower
    let service: EntitlementsResponder
    let clock = ManualClock(nowMs: RandomUsers.baseMs)

    init() async throws {
      dir = try TemporaryDirectory()
      let storage = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
      index = EntitlementIndex()
      follower = ChangeFeedFollower(
        storage: storage, index: index, nowMs: clock.function, logger: Logger(label: "test"))
      try await follower.loadSnapshot()
      service = EntitlementsResponder(
        index: index, follower: follower, storage: storage, nowMs: clock.function, logger: Logger(label: "test"))
    }

    /// The fast path's payload for `userId`, or nil when it leaves the call to the message path.
    func fastBytes(_ userId: String) -> [UInt8]? {
      var buffer = ByteBuffer()
      var userId = userId
      let answered = userId.withUTF8 { bytes in
        service.answerGetSubscription(userId: UnsafeRawBufferPointer(bytes)) { buffer.writeGetSubscriptionResponse($0) }
      }
      return answered ? Array(buffer.readableBytesView) : nil
    }

    func slowResponse(_ userId: String) -> Tollgate_V1_GetSubscriptionResponse {
      service.getSubscription(Tollgate_V1_GetSubscriptionRequest.with { $0.userID = userId })
    }
  }

  @Test(
    "random users (sources numbered and text, several entitlements, replaces chains, reasons, unicode ids, custom levels, times around now): the same bytes",
    .serialized, arguments: 0..<8)
  func property(round: Int) async throws {
    let f = try await Fixture()
    defer { f.dir.remove() }
    var random = RandomUsers(seed: UInt64(round) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
    var compared = 0
    for _ in 0..<60 {
      // Each round is CPU work with no await: give the cooperative pool (two threads here) back
      // between rounds, or the suite's socket tests wait behind these rounds.
      await Task.yield()
      let users = random.users()
      for (userId, records) in users { f.index.replace(userId: userId, with: records) }
      f.index.setAccessLevels(random.accessLevels())
      f.clock.set(RandomUsers.baseMs + random.int(in: -3...3) * 1_000)
      for (userId, _) in users {
        let slow = f.slowResponse(userId)
        #expect(!slow.hasError, "\(userId)")
        let expected: [UInt8] = try slow.serializedBytes()
        let fast = try #require(f.fastBytes(userId), "the fast path answers a known user")
        #expect(fast == expected, "user \(userId.debugDescription): \(slow)")
        // And the message path still tells what the records say, by the rule as written over records.
        let reference = ReferenceSummary.response(
          userId: userId, records: f.index.records(for: userId), nowMs: f.clock.nowMs,
          accessLevels: f.index.accessLevels)
        #expect(slow == reference, "user \(userId.debugDescription)")
        compared += 1
      }
      for (userId, _) in users { f.index.replace(userId: userId, with: []) }
    }
    #expect(compared > 100)
  }

  @Test("unknown users, invalid ids and an index not loaded are left to the message path, which answers the error")
  func leftToTheMessagePath() async throws {
    let f = try await Fixture()
    defer { f.dir.remove() }
    f.index.replace(userId: "u", with: [.sample(userId: "u", expiresAtMs: RandomUsers.baseMs + 1_000)])
    #expect(f.fastBytes("u") != nil)
    #expect(f.fastBytes("nobody") == nil)
    #expect(f.slowResponse("nobody").error.code == .notFound)
    #expect(f.fastBytes("") == nil)
    #expect(f.slowResponse("").error.code == .invalidArgument)
    let long = String(repeating: "x", count: 257)
    f.index.replace(userId: long, with: [.sample(userId: long, expiresAtMs: RandomUsers.baseMs + 1_000)])
    #expect(f.fastBytes(long) == nil)
    #expect(f.slowResponse(long).error.code == .invalidArgument)
    let longest = String(repeating: "y", count: 256)
    f.index.replace(userId: longest, with: [.sample(userId: longest, expiresAtMs: RandomUsers.baseMs + 1_000)])
    #expect(f.fastBytes(longest) == (try f.slowResponse(longest).serializedBytes()))

    let notLoaded = EntitlementsResponder(
      index: f.index,
      follower: ChangeFeedFollower(
        storage: try SQLiteEntitlementStorage(path: f.dir.file("other.sqlite"), nowMs: 1), index: f.index,
        nowMs: f.clock.function, logger: Logger(label: "test")),
      storage: try SQLiteEntitlementStorage(path: f.dir.file("other.sqlite"), nowMs: 1), nowMs: f.clock.function,
      logger: Logger(label: "test"))
    var userId = "u"
    let answered = userId.withUTF8 { bytes in
      notLoaded.answerGetSubscription(userId: UnsafeRawBufferPointer(bytes)) { _ in }
    }
    #expect(!answered)
    #expect(
      notLoaded.getSubscription(Tollgate_V1_GetSubscriptionRequest.with { $0.userID = "u" }).error.code == .unavailable)
  }
}

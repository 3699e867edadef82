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

/// IsSubscriber's hot path (`answerIsSubscriber`: the index's views of its own bytes, encoded by
/// the server's writer) against its message path (`isSubscriber`, serialized by swift-protobuf),
/// byte for byte, over random users and every entitlement they have or lack.
@Suite("IsSubscriber: the hot path's views write the message path's bytes")
struct IsSubscriberViewTests {
  @Test(
    "random users (numbered and text sources, unicode ids, several records per entitlement, custom levels, times around now): the same bytes",
    .serialized, arguments: 0..<6)
  func property(round: Int) async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let clock = ManualClock(nowMs: RandomUsers.baseMs)
    let storage = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    let index = EntitlementIndex()
    let follower = ChangeFeedFollower(
      storage: storage, index: index, nowMs: clock.function, logger: Logger(label: "test"))
    try await follower.loadSnapshot()
    let service = EntitlementsResponder(
      index: index, follower: follower, storage: storage, nowMs: clock.function, logger: Logger(label: "test"))

    var random = RandomUsers(seed: UInt64(round) &* 0xD1B5_4A32_D192_ED03 &+ 7)
    var compared = 0
    var active = 0
    for _ in 0..<60 {
      // Each round is CPU work with no await: give the cooperative pool (two threads here) back
      // between rounds, or the suite's socket tests wait behind these rounds.
      await Task.yield()
      let users = random.users()
      for (userId, records) in users { index.replace(userId: userId, with: records) }
      index.setAccessLevels(random.accessLevels())
      clock.set(RandomUsers.baseMs + random.int(in: -3...3) * 1_000)
      // Every user with every entitlement (those it has, and ones it lacks), plus an unknown user,
      // asked together as one read would ask them.
      var requests: [(user: String, entitlement: String)] = []
      for (userId, _) in users {
        for entitlement in RandomUsers.entitlements where !entitlement.isEmpty {
          requests.append((userId, entitlement))
        }
      }
      requests.append(("nobody-\(round)", "premium"))
      let fast = hotPathAnswerBytes(service, requests)
      #expect(fast.count == requests.count, "every valid request is answered on the hot path")
      for (request, bytes) in zip(requests, fast) {
        let slow = service.isSubscriber(
          Tollgate_V1_IsSubscriberRequest.with {
            $0.userID = request.user
            $0.entitlement = request.entitlement
          })
        let expected: [UInt8] = try slow.serializedBytes()
        #expect(
          bytes == expected, "\(request.user.debugDescription) / \(request.entitlement.debugDescription): \(slow)")
        if slow.active { active += 1 }
        compared += 1
      }
      for (userId, _) in users { index.replace(userId: userId, with: []) }
    }
    #expect(compared > 500)
    #expect(active > 20, "the rounds include entitled answers")
  }
}

/// The payload bytes the hot path writes for each of `requests`, in order.
func hotPathAnswerBytes(_ responder: EntitlementsResponder, _ requests: [(user: String, entitlement: String)])
  -> [[UInt8]]
{
  withPackedBytes(requests) { packed in
    let fields = packed.map { IsSubscriberFields(userId: $0.userId, entitlement: $0.entitlement) }
    return fields.withUnsafeBufferPointer { fields in
      var answers: [[UInt8]] = []
      let answered = responder.answerIsSubscriber(fields) { position, answer in
        #expect(position == answers.count)
        var bytes = ByteBuffer()
        bytes.writeIsSubscriberResponse(answer)
        answers.append(Array(bytes.readableBytesView))
      }
      #expect(answered == answers.count)
      return answers
    }
  }
}

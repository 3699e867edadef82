import NIOCore
import Synchronization
import Testing
import TollgateCallers
import TollgateContract
import TollgateTesting
import TollgateWire

@testable import TollgateServer

@Suite("A read's IsSubscriber frames answered together")
struct IsSubscriberBatchTests {
  /// Records each batch it is given (the user of each request) and answers requests until a user
  /// named "stop", which it leaves to the message path.
  final class RecordingHandler: EntitlementsHandler {
    let batches = Mutex<[[String]]>([])
    let messages = Mutex<[String]>([])

    func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse {
      messages.withLock { $0.append(request.userID) }
      return .init()
    }
    func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse {
      .init()
    }
    func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity) async
      -> Tollgate_V1_SubmitPurchaseResponse
    { .init() }
    func getSubmission(_ request: Tollgate_V1_GetSubmissionRequest, caller: CallerIdentity) async
      -> Tollgate_V1_GetSubmissionResponse
    { .init() }
    func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse { .init() }

    func answerIsSubscriber(
      _ requests: UnsafeBufferPointer<IsSubscriberFields>, _ each: (Int, IsSubscriberAnswerView) -> Void
    ) -> Int {
      let users = requests.map { String(decoding: $0.userId, as: UTF8.self) }
      batches.withLock { $0.append(users) }
      var answered = 0
      for user in users {
        guard user != "stop" else { break }
        each(answered, IsSubscriberAnswerView())
        answered += 1
      }
      return answered
    }
  }

  /// Runs the hot path's scan over `bytes`: the length it answered, the answers' request ids,
  /// the batches the handler saw and the users it left to the message path.
  static func scan(
    _ bytes: [UInt8], maximumPayloadLength: Int = 1 << 20
  ) -> (answered: Int, answerIds: [UInt32], batches: [[String]], messages: [String]) {
    let handler = RecordingHandler()
    let dispatcher = EntitlementsDispatcher(handler: handler)
    var output = ByteBuffer()
    let answered = bytes.withUnsafeBytes {
      dispatcher.answerIsSubscriberCalls(in: $0, maximumPayloadLength: maximumPayloadLength, into: &output).consumed
    }
    var ids: [UInt32] = []
    let decoder = ResponseFrameDecoder(maximumPayloadLength: 1 << 20)
    while let frame = try? decoder.decode(buffer: &output) {
      #expect(frame.status == .success)
      ids.append(frame.requestId)
    }
    #expect(output.readableBytes == 0)
    return (answered, ids, handler.batches.withLock { $0 }, handler.messages.withLock { $0 })
  }

  @Test("the complete IsSubscriber frames at the front, up to another method")
  func stopsAtAnotherMethod() throws {
    let front = try RequestFrames.isSubscriber(id: 1, user: "a") + RequestFrames.isSubscriber(id: 2, user: "b")
    let rest =
      try RawWire.request(methodIndex: 3, requestId: 3, payload: []) + RequestFrames.isSubscriber(id: 4, user: "c")
    let result = Self.scan(front + rest)
    #expect(result.answered == front.count)
    #expect(result.answerIds == [1, 2])
    #expect(result.batches == [["a", "b"]])
  }

  @Test("a payload that does not decode, a partial frame or an oversized header ends the run")
  func stopsAtWhatItCannotAnswer() throws {
    let first = try RequestFrames.isSubscriber(id: 1, user: "a")
    let broken = RawWire.request(methodIndex: 0, requestId: 2, payload: [0xFF, 0xFF])
    let invalidUTF8 = RawWire.request(methodIndex: 0, requestId: 2, payload: [0x0A, 0x02, 0xC3, 0x28])
    let partial = Array(try RequestFrames.isSubscriber(id: 2, user: "b").dropLast(2))
    let oversized = RawWire.header(methodIndex: 0, requestId: 2, length: 5_000) + [UInt8](repeating: 0, count: 64)
    for rest in [broken, invalidUTF8, partial, oversized] {
      let result = Self.scan(first + rest, maximumPayloadLength: 1_000)
      #expect(result.answered == first.count)
      #expect(result.answerIds == [1])
    }
    // Nothing at the front to answer: the handler is not called.
    for bytes in [broken, partial, oversized, RawWire.request(methodIndex: 1, requestId: 9, payload: []), []] {
      let result = Self.scan(bytes, maximumPayloadLength: 1_000)
      #expect(result.answered == 0)
      #expect(result.batches.isEmpty)
    }
  }

  @Test(
    "a call the handler leaves is answered through the message path, in its place, and the rest go back to the handler")
  func handlerLeavesACall() throws {
    let frames = try [(1, "a"), (2, "b"), (3, "stop"), (4, "c"), (5, "stop"), (6, "stop")].map {
      try RequestFrames.isSubscriber(id: UInt32($0.0), user: $0.1)
    }
    let bytes = frames.flatMap { $0 }
    let result = Self.scan(bytes)
    #expect(result.answered == bytes.count)
    #expect(result.answerIds == [1, 2, 3, 4, 5, 6])
    #expect(result.messages == ["stop", "stop", "stop"])
    #expect(result.batches == [["a", "b", "stop", "c", "stop", "stop"], ["c", "stop", "stop"], ["stop"]])
  }

  @Test("at most batchLimit calls at a time")
  func batchLimit() throws {
    let frames = try (0..<100).map { try RequestFrames.isSubscriber(id: UInt32($0), user: "u\($0)") }
    let result = Self.scan(frames.flatMap { $0 })
    #expect(result.answered == frames.prefix(EntitlementsDispatcher.batchLimit).map(\.count).reduce(0, +))
    #expect(result.answerIds == (0..<UInt32(EntitlementsDispatcher.batchLimit)).map { $0 })
  }
}

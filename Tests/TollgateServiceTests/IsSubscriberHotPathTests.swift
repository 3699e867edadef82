import NIOCore
import Testing
import TollgateCore
import TollgateRPC

@testable import TollgateService

/// IsSubscriber calls built from strings, as the server builds them from a read's bytes: every
/// field's bytes back to back in one buffer, kept alive for `body`.
func withCalls<Result>(
  _ queries: [(user: String, entitlement: String)], _ body: (UnsafeBufferPointer<IsSubscriberCall>) -> Result
) -> Result {
  let joined = queries.flatMap { Array($0.user.utf8) + Array($0.entitlement.utf8) }
  return joined.withUnsafeBytes { bytes in
    var offset = 0
    func next(_ count: Int) -> UnsafeRawBufferPointer {
      defer { offset += count }
      return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }
    let calls = queries.enumerated().map { position, query in
      IsSubscriberCall(
        requestId: UInt32(position),
        fields: IsSubscriberFields(userId: next(query.user.utf8.count), entitlement: next(query.entitlement.utf8.count)))
    }
    return calls.withUnsafeBufferPointer(body)
  }
}

/// The IsSubscriber answers in `output`, in order: request id and message.
func decodedAnswers(_ output: ByteBuffer) throws -> [(requestId: UInt32, response: Tollgate_V1_IsSubscriberResponse)] {
  var output = output
  let decoder = ResponseFrameDecoder(maximumPayloadLength: 1 << 20)
  var answers: [(UInt32, Tollgate_V1_IsSubscriberResponse)] = []
  while let frame = try decoder.decode(buffer: &output) {
    #expect(frame.status == .success)
    #expect(frame.methodIndex == EntitlementsMethod.isSubscriber.rawValue)
    answers.append((frame.requestId, try Tollgate_V1_IsSubscriberResponse(serializedBytes: Array(frame.payload.readableBytesView))))
  }
  #expect(output.readableBytes == 0)
  return answers
}

@Suite("IsSubscriber's hot path in the index")
struct IsSubscriberHotPathTests {
  /// 2,000 users: some with a second source, some with a second entitlement, every seventh
  /// removed again.
  static func index() -> EntitlementIndex {
    let index = EntitlementIndex()
    for number in 0..<2_000 {
      let user = "user-\(number)"
      var records: [EntitlementRecord] = [.sample(userId: user, expiresAtMs: Int64(number) * 1_000)]
      if number.isMultiple(of: 3) {
        records.append(.sample(userId: user, source: "app_store:9\(number)", expiresAtMs: 5_000_000))
      }
      if number.isMultiple(of: 5) {
        records.append(.sample(userId: user, entitlement: "pro", source: "google_play:tok-\(number)", productId: "pro_yearly", expiresAtMs: 3_000_000))
      }
      index.replace(userId: user, with: records)
    }
    for number in stride(from: 0, to: 2_000, by: 7) { index.replace(userId: "user-\(number)", with: []) }
    return index
  }

  @Test("answered together, every call gets the answer it gets alone, in order (users known, unknown and removed; entitlements mixed and unknown)")
  func batchAgreesWithSingleAnswers() throws {
    let index = Self.index()
    let entitlements = ["premium", "premium", "pro", "gold", "premium", "pro", "pro"]
    let queries = (0..<300).map { position in
      (user: position % 17 == 0 ? "nobody-\(position)" : "user-\(position * 13 % 2_000)", entitlement: entitlements[position % entitlements.count])
    }
    let nowMs: Int64 = 1_000_000
    var output = ByteBuffer()
    withCalls(queries) { calls in
      // In reads of up to 64 calls, as the server batches them.
      var start = 0
      while start < calls.count {
        let end = min(start + 64, calls.count)
        index.answerIsSubscriber(UnsafeBufferPointer(rebasing: calls[start..<end]), nowMs: nowMs, into: &output)
        start = end
      }
    }
    let answers = try decodedAnswers(output)
    #expect(answers.map(\.requestId) == (0..<UInt32(queries.count)).map { $0 })
    for (answer, query) in zip(answers, queries) {
      let alone = index.isSubscriberAnswer(userId: query.user, entitlement: query.entitlement, nowMs: nowMs).message
      #expect(answer.response == alone, "\(query)")
    }
    // The sample covers what it claims to.
    #expect(answers.contains { $0.response.active } && answers.contains { !$0.response.active && $0.response.expiresAtMs > 0 })
    #expect(answers.contains { $0.response.productID == "pro_yearly" })
    #expect(answers.contains { $0.response.storeSubscriptionID.hasPrefix("9") })
  }

  @Test("a single call and an empty batch")
  func edges() throws {
    let index = Self.index()
    var output = ByteBuffer()
    withCalls([]) { index.answerIsSubscriber($0, nowMs: 1, into: &output) }
    #expect(output.readableBytes == 0)
    withCalls([(user: "user-1", entitlement: "premium")]) { index.answerIsSubscriber($0, nowMs: 1, into: &output) }
    let answers = try decodedAnswers(output)
    #expect(answers.count == 1)
    #expect(answers.first?.response == index.isSubscriberAnswer(userId: "user-1", entitlement: "premium", nowMs: 1).message)
  }
}

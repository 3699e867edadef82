import Logging
import Synchronization
import Testing
import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateServer
import TollgateService
import TollgateTesting
import TollgateWire

/// GetSubscription through the fast port (`RPCServer` on loopback, the real responder and index):
/// every answer is the message path's bytes, pipelined or not, mixed with IsSubscriber calls,
/// for unknown users and invalid ids too, and callers are checked before anything is answered.
@Suite("GetSubscription over the fast port answers as the message path does")
struct GetSubscriptionSocketTests {
  static let logger = Logger(label: "test.get-subscription")
  typealias Fixture = GetSubscriptionFastPathTests.Fixture

  static func getSubscription(id: UInt32, payload: [UInt8]) -> [UInt8] {
    RawWire.request(methodIndex: EntitlementsMethod.getSubscription.rawValue, requestId: id, payload: payload)
  }

  static func getSubscription(id: UInt32, user: String) throws -> [UInt8] {
    getSubscription(id: id, payload: try Tollgate_V1_GetSubscriptionRequest.with { $0.userID = user }.serializedBytes())
  }

  static func isSubscriber(id: UInt32, user: String) throws -> [UInt8] {
    let request = Tollgate_V1_IsSubscriberRequest.with {
      $0.userID = user
      $0.entitlement = "premium"
    }
    return RawWire.request(
      methodIndex: EntitlementsMethod.isSubscriber.rawValue, requestId: id, payload: try request.serializedBytes())
  }

  /// The responder, counting the GetSubscription calls its fast path answered.
  final class CountingHandler: EntitlementsHandler {
    let wrapped: EntitlementsResponder
    let fastAnswers = Atomic(0)

    init(_ wrapped: EntitlementsResponder) { self.wrapped = wrapped }

    func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse {
      wrapped.isSubscriber(request)
    }

    func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse {
      wrapped.getSubscription(request)
    }

    func answerGetSubscription(userId: UnsafeRawBufferPointer, _ write: (GetSubscriptionAnswer) -> Void) -> Bool {
      let answered = wrapped.answerGetSubscription(userId: userId, write)
      if answered { fastAnswers.add(1, ordering: .relaxed) }
      return answered
    }

    func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity) async
      -> Tollgate_V1_SubmitPurchaseResponse
    {
      await wrapped.submitPurchase(request, caller: caller)
    }

    func getSubmission(_ request: Tollgate_V1_GetSubmissionRequest, caller: CallerIdentity) async
      -> Tollgate_V1_GetSubmissionResponse
    {
      await wrapped.getSubmission(request, caller: caller)
    }

    func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse { wrapped.health(request) }
  }

  /// Serves `f.service` on loopback with `access` while `body` runs.
  func withServer(
    _ f: Fixture, access: CallerAccess = .open, _ body: (RPCServer, CountingHandler) async throws -> Void
  ) async throws {
    var config = RPCServer.Config.defaults
    config.access = access
    let handler = CountingHandler(f.service)
    let server = try RPCServer.bind(
      listeners: [.tcp(host: "127.0.0.1", port: 0)], config: config, handler: handler, logger: Self.logger)
    async let serving: Void = server.run()
    do {
      try await body(server, handler)
    } catch {
      try await server.close()
      throw error
    }
    try await server.close()
    try await serving
  }

  /// A request frame's payload and what the message path answers to it (status 0 and the
  /// response's bytes, or status 1 and nothing for a payload that does not decode).
  struct Call {
    var frame: [UInt8]
    var status: UInt32
    var expected: [UInt8]
  }

  /// GetSubscription calls for `users` and a few odd ones, each with the message path's answer,
  /// IsSubscriber calls between them.
  static func calls(_ f: Fixture, users: [String]) throws -> [Call] {
    var calls: [Call] = []
    var id: UInt32 = 1
    func add(_ payload: [UInt8]) throws {
      let frame = getSubscription(id: id, payload: payload)
      if let request = try? Tollgate_V1_GetSubscriptionRequest(serializedBytes: payload) {
        calls.append(Call(frame: frame, status: 0, expected: try f.service.getSubscription(request).serializedBytes()))
      } else {
        calls.append(Call(frame: frame, status: 1, expected: []))
      }
      id += 1
    }
    for (position, user) in users.enumerated() {
      try add(try Tollgate_V1_GetSubscriptionRequest.with { $0.userID = user }.serializedBytes())
      if position % 2 == 0 {
        let request = Tollgate_V1_IsSubscriberRequest.with {
          $0.userID = user
          $0.entitlement = "premium"
        }
        calls.append(
          Call(
            frame: try isSubscriber(id: id, user: user), status: 0,
            expected: try f.service.isSubscriber(request).serializedBytes()))
        id += 1
      }
    }
    let first: [UInt8] = try Tollgate_V1_GetSubscriptionRequest.with { $0.userID = users[0] }.serializedBytes()
    // Unknown and invalid users, an unknown field and a repeated user_id (the last wins), the
    // empty message, and payloads that do not decode (not UTF-8, cut short).
    for user in ["nobody", "", String(repeating: "x", count: 257)] {
      try add(try Tollgate_V1_GetSubscriptionRequest.with { $0.userID = user }.serializedBytes())
    }
    try add([0x28, 0x07] + first)
    let nobody: [UInt8] = try Tollgate_V1_GetSubscriptionRequest.with { $0.userID = "nobody" }.serializedBytes()
    try add(nobody + first)
    try add([])
    try add([0x0A, 0x02, 0xC3, 0x28])
    try add([0x0A, 0x05, 0x75])
    return calls
  }

  static func check(_ responses: [RawResponse], _ calls: [Call]) {
    #expect(responses.count == calls.count)
    for (response, (position, call)) in zip(responses, calls.enumerated()) {
      #expect(response.requestId == UInt32(position + 1))
      #expect(response.status == call.status, "call \(position + 1)")
      #expect(response.payload == call.expected, "call \(position + 1)")
    }
  }

  @Test(
    "pipelined in one write, one call per write, or cut into pieces: every answer is the message path's, byte for byte")
  func answers() async throws {
    let f = try await Fixture()
    defer { f.dir.remove() }
    var random = RandomUsers(seed: 42)
    var users: [String] = []
    for _ in 0..<6 {
      for (userId, records) in random.users() where !users.contains(userId) {
        f.index.replace(userId: userId, with: records)
        users.append(userId)
      }
    }
    let calls = try Self.calls(f, users: users)
    let gets = calls.filter { $0.frame[0] == UInt8(EntitlementsMethod.getSubscription.rawValue) }
    try await withServer(f) { server, handler in
      Self.check(
        try await RawWire.exchange(port: server.port, chunks: [calls.flatMap(\.frame)], frames: calls.count), calls)
      Self.check(try await RawWire.exchange(port: server.port, chunks: calls.map(\.frame), frames: calls.count), calls)
      // Frames cut across writes (each write 7 bytes): answered once whole.
      let bytes = calls.flatMap(\.frame)
      let pieces = stride(from: 0, to: bytes.count, by: 7).map { Array(bytes[$0..<min($0 + 7, bytes.count)]) }
      Self.check(try await RawWire.exchange(port: server.port, chunks: pieces, frames: calls.count), calls)
      // Recorded like every call: the known users answered ok, the rest by their error.
      let counted = await server.metrics().calls
      let method = Int(EntitlementsMethod.getSubscription.rawValue)
      #expect(counted.calls(method: method) == UInt64(3 * gets.count))
      #expect(counted.calls(method: method, outcome: .ok) == UInt64(3 * (users.count + 2)))
      #expect(counted.calls(method: method, outcome: .notFound) == 3 * 1)
      #expect(counted.calls(method: method, outcome: .invalidArgument) == 3 * 3)
      #expect(counted.calls(method: method, outcome: .failed) == 3 * 2)
      // The known users' calls were the fast path's.
      #expect(handler.fastAnswers.load(ordering: .relaxed) == 3 * (users.count + 2))
    }
  }

  @Test(
    "with callers: before Authenticate UNAUTHENTICATED, a caller without the read scope PERMISSION_DENIED, a reader the answer"
  )
  func callers() async throws {
    let f = try await Fixture()
    defer { f.dir.remove() }
    f.index.replace(userId: "u", with: [.sample(userId: "u", expiresAtMs: RandomUsers.baseMs + 1_000)])
    let registry = CallerRegistry([
      CallerKey(name: "reader", keySha256: CallerKey.digest(of: "reader-key"), scopes: [.read]),
      CallerKey(name: "submitter", keySha256: CallerKey.digest(of: "submitter-key"), scopes: [.submit]),
    ])
    let expected: [UInt8] = try f.service.getSubscription(Tollgate_V1_GetSubscriptionRequest.with { $0.userID = "u" })
      .serializedBytes()
    try await withServer(f, access: .callers(registry)) { server, handler in
      func refusal(_ response: RawResponse) throws -> Tollgate_V1_ErrorCode {
        let answer = try Tollgate_V1_GetSubscriptionResponse(serializedBytes: response.payload)
        #expect(answer.subscriptions.isEmpty)
        return answer.error.code
      }
      let anonymous = try await RawWire.exchange(
        port: server.port, chunks: [try Self.getSubscription(id: 1, user: "u")], frames: 1)
      #expect(try refusal(anonymous[0]) == .unauthenticated)
      let submitter = try await RawWire.exchange(
        port: server.port,
        chunks: [
          try RawWire.authenticate(id: 1, caller: "submitter", key: "submitter-key")
            + Self.getSubscription(id: 2, user: "u")
        ], frames: 2)
      #expect(try refusal(submitter[1]) == .permissionDenied)
      let reader = try await RawWire.exchange(
        port: server.port,
        chunks: [
          try RawWire.authenticate(id: 1, caller: "reader", key: "reader-key") + Self.getSubscription(id: 2, user: "u")
            + Self.getSubscription(id: 3, user: "u")
        ], frames: 3)
      #expect(reader[1].payload == expected)
      #expect(reader[2].payload == expected)
      // Only the reader's calls reached the handler.
      #expect(handler.fastAnswers.load(ordering: .relaxed) == 2)
    }
  }
}

import GRPCCore
import GRPCInProcessTransport
import GRPCProtobuf
import Logging
import Synchronization
import Testing
import TollgateCallers
import TollgateContract

@testable import TollgateGRPC

@Suite("gRPC door: callers, keys and scopes (in process)")
struct CallerInterceptorTests {
  static func submission(_ user: String = "u1") -> Tollgate_V1_SubmitPurchaseRequest {
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = user
    request.store = .appStore
    request.receipt = "1000000000000001"
    return request
  }

  static func isSubscriber(_ user: String = "yes") -> Tollgate_V1_IsSubscriberRequest {
    var request = Tollgate_V1_IsSubscriberRequest()
    request.userID = user
    request.entitlement = "pro"
    return request
  }

  @Test("no key, a wrong key and a malformed one are UNAUTHENTICATED, with the error code in the trailers")
  func unauthenticated() async throws {
    let handler = FakeEntitlementsHandler()
    try await withInProcessDoor(handler: handler) { client, _ in
      for metadata: Metadata in [
        [:], TestCallers.bearer("not-a-key"), ["authorization": "Basic \(TestCallers.bothKey)"],
      ] {
        let read = await rpcError { try await client.isSubscriber(Self.isSubscriber(), metadata: metadata) }
        #expect(read?.code == .unauthenticated)
        #expect(read?.metadata[stringValues: "tollgate-error-code"].map { $0 } == ["ERROR_CODE_UNAUTHENTICATED"])
        let submit = await rpcError { try await client.submitPurchase(Self.submission(), metadata: metadata) }
        #expect(submit?.code == .unauthenticated)
      }
    }
    #expect(handler.submitters.withLock { $0 }.isEmpty)
  }

  @Test("a read caller's SubmitPurchase is PERMISSION_DENIED and never reaches the handler")
  func readCallerMayNotSubmit() async throws {
    let handler = FakeEntitlementsHandler()
    try await withInProcessDoor(handler: handler) { client, _ in
      let refused = await rpcError {
        try await client.submitPurchase(Self.submission(), metadata: TestCallers.bearer(TestCallers.readerKey))
      }
      #expect(refused?.code == .permissionDenied)
      #expect(refused?.message == "caller reader may not call SubmitPurchase: it needs the submit scope")
      #expect(refused?.metadata[stringValues: "tollgate-error-code"].map { $0 } == ["ERROR_CODE_PERMISSION_DENIED"])
      let read = try await client.isSubscriber(Self.isSubscriber(), metadata: TestCallers.bearer(TestCallers.readerKey))
      #expect(read.active)
      let submitted = try await client.submitPurchase(
        Self.submission(), metadata: TestCallers.bearer(TestCallers.submitterKey))
      #expect(submitted.submissionID == "s-u1")
    }
    #expect(handler.submitters.withLock { $0.map(\.name) } == ["submitter"])
  }

  @Test("every admin RPC is PERMISSION_DENIED without the admin scope and answered with it")
  func adminScope() async throws {
    let admin = FakeAdminHandler()
    try await withInProcessDoor(handler: FakeEntitlementsHandler(admin: admin)) { client, _ in
      for key in [TestCallers.bothKey, TestCallers.adminKey] {
        let metadata = TestCallers.bearer(key)
        let errors: [RPCError?] = [
          await rpcError { try await client.lookUp(Tollgate_V1_LookUpRequest(), metadata: metadata) },
          await rpcError { try await client.getTimeline(Tollgate_V1_GetTimelineRequest(), metadata: metadata) },
          await rpcError { try await client.explain(Tollgate_V1_ExplainRequest(), metadata: metadata) },
          await rpcError { try await client.grant(Tollgate_V1_GrantRequest(), metadata: metadata) },
          await rpcError { try await client.reverify(Tollgate_V1_ReverifyRequest(), metadata: metadata) },
          await rpcError { try await client.eraseUser(Tollgate_V1_EraseUserRequest(), metadata: metadata) },
        ]
        let revoke = await rpcError { try await client.revoke(Tollgate_V1_RevokeRequest(), metadata: metadata) }
        if key == TestCallers.bothKey {
          #expect(errors.map { $0?.code } == Array(repeating: .permissionDenied, count: 6))
          #expect(revoke?.code == .permissionDenied)
          #expect(errors[3]?.message == "caller both may not call Grant: it needs the admin scope")
        } else {
          #expect(errors.allSatisfy { $0 == nil })
          // The handler's own NOT_FOUND, not a refusal.
          #expect(revoke?.code == .notFound)
        }
      }
    }
    #expect(
      admin.calls.withLock { $0 } == [
        "LookUp by ops", "GetTimeline by ops", "Explain by ops", "Grant by ops", "Reverify by ops",
        "EraseUser by ops", "Revoke by ops",
      ])
  }

  @Test("a replica without an admin handler answers admin calls UNAVAILABLE")
  func noAdminHandler() async throws {
    try await withInProcessDoor(handler: FakeEntitlementsHandler(admin: nil)) { client, _ in
      let error = await rpcError {
        try await client.grant(Tollgate_V1_GrantRequest(), metadata: TestCallers.bearer(TestCallers.adminKey))
      }
      #expect(error?.code == .unavailable)
      #expect(error?.message == "this replica serves no admin calls")
    }
  }

  @Test("a caller removed or re-keyed in the registry is refused at its next call, on the same connection")
  func removedCaller() async throws {
    let registry = TestCallers.registry()
    try await withInProcessDoor(gate: TestCallers.gate(access: .callers(registry))) { client, _ in
      let reader = TestCallers.bearer(TestCallers.readerKey)
      let before = try await client.isSubscriber(Self.isSubscriber(), metadata: reader)
      #expect(before.active)
      registry.replace(with: [
        CallerKey(name: "reader", keySha256: CallerKey.digest(of: "a-new-key-0123456789abcdef"), scopes: [.read])
      ])
      let after = await rpcError { try await client.isSubscriber(Self.isSubscriber(), metadata: reader) }
      #expect(after?.code == .unauthenticated)
    }
  }

  @Test("a server without callers lets every call in as anyone, without a key")
  func openAccess() async throws {
    let handler = FakeEntitlementsHandler(admin: FakeAdminHandler())
    try await withInProcessDoor(handler: handler, gate: TestCallers.gate(access: .open)) { client, _ in
      let open = try await client.isSubscriber(Self.isSubscriber())
      #expect(open.active)
      _ = try await client.submitPurchase(Self.submission())
      _ = try await client.reverify(Tollgate_V1_ReverifyRequest())
      let who = try await client.authenticate(Tollgate_V1_AuthenticateRequest())
      #expect(who.caller == "")
      #expect(who.scopes == ["read", "submit", "admin"])
    }
    #expect(handler.submitters.withLock { $0 } == [.anyone])
  }

  @Test("a source out of failed keys is RESOURCE_EXHAUSTED even with a good key")
  func sourceBlocked() async throws {
    let gate = TestCallers.gate(failuresPerMinute: 1, failureBurst: 2)
    try await withInProcessDoor(gate: gate) { client, _ in
      for _ in 0..<2 {
        let wrong = await rpcError {
          try await client.isSubscriber(Self.isSubscriber(), metadata: TestCallers.bearer("x"))
        }
        #expect(wrong?.code == .unauthenticated)
      }
      let blocked = await rpcError {
        try await client.isSubscriber(Self.isSubscriber(), metadata: TestCallers.bearer(TestCallers.readerKey))
      }
      #expect(blocked?.code == .resourceExhausted)
      #expect(blocked?.metadata[stringValues: "tollgate-error-code"].map { $0 } == ["ERROR_CODE_RESOURCE_EXHAUSTED"])
    }
  }

  @Test("SubmitPurchase over the caller's rate is RESOURCE_EXHAUSTED before the handler")
  func submitRate() async throws {
    let handler = FakeEntitlementsHandler()
    var admitted = 0
    try await withInProcessDoor(handler: handler, gate: TestCallers.gate(submitsPerSecond: 1)) { client, _ in
      // A burst of 1 at 1 a second: the second call in a row is refused unless the machine stalls
      // past a refill between them (a loaded test run), so call until refused, and count.
      let metadata = TestCallers.bearer(TestCallers.submitterKey)
      _ = try await client.submitPurchase(Self.submission(), metadata: metadata)
      admitted = 1
      var refusal: RPCError?
      for _ in 0..<20 where refusal == nil {
        refusal = await rpcError { try await client.submitPurchase(Self.submission(), metadata: metadata) }
        if refusal == nil { admitted += 1 }
      }
      #expect(refusal?.code == .resourceExhausted)
    }
    #expect(handler.submitters.withLock { $0.count } == admitted)
  }

  @Test("a refused call's message is never decoded; a let-in call's is, once")
  func refusedCallNotDecoded() async throws {
    let decoded = DecodeCount()
    let gate = TestCallers.gate()
    let transport = InProcessTransport()
    let interceptor = CallerInterceptor(gate: gate, logger: Logger(label: "test.grpc"))
    let service = CountingSubmitService(decoded: decoded)
    try await withGRPCServer(transport: transport.server, services: [service], interceptors: [interceptor]) { _ in
      try await withGRPCClient(transport: transport.client) { grpc in
        let client = Tollgate_V1_Entitlements.Client(wrapping: grpc)
        for metadata: Metadata in [[:], TestCallers.bearer("wrong"), TestCallers.bearer(TestCallers.readerKey)] {
          let error = await rpcError { try await client.submitPurchase(Self.submission(), metadata: metadata) }
          #expect(error != nil)
        }
        #expect(decoded.count == 0)
        _ = try await client.submitPurchase(Self.submission(), metadata: TestCallers.bearer(TestCallers.submitterKey))
        #expect(decoded.count == 1)
      }
    }
  }

  @Test("the interceptor's table: health needs nothing, Authenticate a caller, every method its operation")
  func requirements() {
    #expect(CallerInterceptor.requirement(service: "grpc.health.v1.Health", method: "Check") == .nothing)
    #expect(CallerInterceptor.requirement(service: "tollgate.v1.Entitlements", method: "Authenticate") == .caller)
    for operation in CallerOperation.allCases {
      #expect(
        CallerInterceptor.requirement(service: "tollgate.v1.Entitlements", method: operation.methodName)
          == .operation(operation))
    }
    #expect(CallerInterceptor.requirement(service: "tollgate.v1.Entitlements", method: "Nope") == .unknown)
    #expect(CallerInterceptor.requirement(service: "other.Service", method: "Check") == .unknown)
  }
}

/// How many messages a `CountingDeserializer` decoded.
final class DecodeCount: Sendable {
  private let value = Atomic<Int>(0)
  var count: Int { value.load(ordering: .relaxed) }
  func add() { value.add(1, ordering: .relaxed) }
}

/// SubmitPurchase's protobuf decoding, counting what it decodes.
struct CountingDeserializer: MessageDeserializer {
  let decoded: DecodeCount

  func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws
    -> Tollgate_V1_SubmitPurchaseRequest
  {
    decoded.add()
    return try ProtobufDeserializer<Tollgate_V1_SubmitPurchaseRequest>().deserialize(serializedMessageBytes)
  }
}

/// SubmitPurchase alone, its messages decoded by a `CountingDeserializer`; answers PENDING.
struct CountingSubmitService: RegistrableRPCService {
  let decoded: DecodeCount

  func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
    router.registerHandler(
      forMethod: Tollgate_V1_Entitlements.Method.SubmitPurchase.descriptor,
      deserializer: CountingDeserializer(decoded: decoded),
      serializer: ProtobufSerializer<Tollgate_V1_SubmitPurchaseResponse>()
    ) { request, _ in
      let message = try await ServerRequest(stream: request).message
      var response = Tollgate_V1_SubmitPurchaseResponse()
      response.submissionID = "s-\(message.userID)"
      return StreamingServerResponse(single: ServerResponse(message: response))
    }
  }
}

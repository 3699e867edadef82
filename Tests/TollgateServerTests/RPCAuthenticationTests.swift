import Foundation
import Logging
import NIOCore
import Testing
import TollgateCallers
import TollgateContract
import TollgateServer
import TollgateTesting
import TollgateWire

@Suite("RPC server: callers, keys and scopes over loopback")
struct RPCAuthenticationTests {
  static let logger = Logger(label: "test.rpc.auth")
  static let readerKey = "reader-secret"
  static let submitterKey = "submitter-secret"

  static func registry() -> CallerRegistry {
    CallerRegistry([
      CallerKey(name: "reader", keySha256: CallerKey.digest(of: readerKey), scopes: [.read]),
      CallerKey(name: "submitter", keySha256: CallerKey.digest(of: submitterKey), scopes: [.submit]),
    ])
  }

  func withServer(
    registry: CallerRegistry = registry(), listeners: [RPCListenAddress] = [.tcp(host: "127.0.0.1", port: 0)],
    _ body: (RPCServer, FakeEntitlementsHandler) async throws -> Void
  ) async throws {
    var config = RPCServer.Config.defaults
    config.access = .callers(registry)
    try await withRPCServer(listeners: listeners, config: config, logger: Self.logger, body)
  }

  static func authenticate(id: UInt32, caller: String, key: String) throws -> [UInt8] {
    try RawWire.authenticate(id: id, caller: caller, key: key)
  }

  static func submit(id: UInt32) throws -> [UInt8] {
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = "u"
    request.store = .appStore
    request.receipt = "1"
    return RawWire.request(
      methodIndex: EntitlementsMethod.submitPurchase.rawValue, requestId: id, payload: try request.serializedBytes())
  }

  @Test("before Authenticate every call, the hot path's included, answers UNAUTHENTICATED and the handler sees none")
  func unauthenticated() async throws {
    try await withServer { server, handler in
      let bytes =
        try RequestFrames.isSubscriber(id: 1, user: "yes") + RequestFrames.isSubscriber(id: 2, user: "yes")
        + RawWire.request(methodIndex: 3, requestId: 3, payload: []) + Self.submit(id: 4)
      let responses = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 4)
      #expect(responses.map(\.requestId) == [1, 2, 3, 4])
      #expect(responses.allSatisfy { $0.status == 0 })
      #expect(
        try Tollgate_V1_IsSubscriberResponse(serializedBytes: responses[0].payload).error.code == .unauthenticated)
      #expect(try Tollgate_V1_IsSubscriberResponse(serializedBytes: responses[1].payload).active == false)
      #expect(try Tollgate_V1_HealthResponse(serializedBytes: responses[2].payload).error.code == .unauthenticated)
      #expect(
        try Tollgate_V1_SubmitPurchaseResponse(serializedBytes: responses[3].payload).error.code == .unauthenticated)
      #expect(handler.answeredInBulk.load(ordering: .relaxed) == 0)
      #expect(handler.answeredAsMessages.load(ordering: .relaxed) == 0)
      #expect(handler.submitted.load(ordering: .relaxed) == 0)
    }
  }

  @Test("a reader reads on the hot path but may not submit; a submitter submits but may not read")
  func scopes() async throws {
    try await withServer { server, handler in
      let reader =
        try Self.authenticate(id: 1, caller: "reader", key: Self.readerKey)
        + RequestFrames.isSubscriber(id: 2, user: "yes") + Self.submit(id: 3)
      let answers = try await RawWire.exchange(port: server.port, chunks: [reader], frames: 3)
      let authenticated = try Tollgate_V1_AuthenticateResponse(serializedBytes: answers[0].payload)
      #expect(!authenticated.hasError)
      #expect(authenticated.caller == "reader")
      #expect(authenticated.scopes == ["read"])
      #expect(try Tollgate_V1_IsSubscriberResponse(serializedBytes: answers[1].payload).active)
      #expect(handler.answeredInBulk.load(ordering: .relaxed) == 1)
      let refused = try Tollgate_V1_SubmitPurchaseResponse(serializedBytes: answers[2].payload)
      #expect(refused.error.code == .permissionDenied)
      #expect(refused.error.message.contains("submit"))
      #expect(handler.submitted.load(ordering: .relaxed) == 0)

      var get = Tollgate_V1_GetSubmissionRequest()
      get.submissionID = "12"
      let submitter =
        try Self.authenticate(id: 1, caller: "submitter", key: Self.submitterKey)
        + RequestFrames.isSubscriber(id: 2, user: "yes") + Self.submit(id: 3)
        + RawWire.request(methodIndex: 5, requestId: 4, payload: try get.serializedBytes())
      let second = try await RawWire.exchange(port: server.port, chunks: [submitter], frames: 4)
      let byId = Dictionary(uniqueKeysWithValues: second.map { ($0.requestId, $0) })
      #expect(try Tollgate_V1_IsSubscriberResponse(serializedBytes: byId[2]!.payload).error.code == .permissionDenied)
      #expect(try Tollgate_V1_SubmitPurchaseResponse(serializedBytes: byId[3]!.payload).status == .pending)
      let submission = try Tollgate_V1_GetSubmissionResponse(serializedBytes: byId[4]!.payload)
      #expect(submission.submissionID == "12")
      #expect(submission.userID == "submitter")  // the fake echoes the caller it was given
    }
  }

  @Test("a wrong key or unknown caller is refused; the third failure in a row closes the connection")
  func failuresCloseTheConnection() async throws {
    try await withServer { server, _ in
      let bytes =
        try Self.authenticate(id: 1, caller: "reader", key: "wrong")
        + Self.authenticate(id: 2, caller: "nobody", key: Self.readerKey)
        + Self.authenticate(id: 3, caller: "reader", key: "")
        + Self.authenticate(id: 4, caller: "reader", key: Self.readerKey)
        + RequestFrames.isSubscriber(id: 5, user: "yes")
      // Asks for five answers: the server closes after the third.
      let responses = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 5)
      #expect(responses.map(\.requestId) == [1, 2, 3])
      for response in responses {
        let answer = try Tollgate_V1_AuthenticateResponse(serializedBytes: response.payload)
        #expect(answer.error.code == .unauthenticated)
        #expect(!answer.error.message.contains(Self.readerKey))
      }
    }
  }

  @Test("a reloaded registry ends a removed caller's access at its next request and applies new scopes")
  func reload() async throws {
    let registry = Self.registry()
    try await withServer(registry: registry) { server, _ in
      let connection = try await RawConnection.connect(port: server.port)
      try await connection.send(Self.authenticate(id: 1, caller: "reader", key: Self.readerKey))
      #expect(try await connection.receive(frames: 1).count == 1)
      try await connection.send(RequestFrames.isSubscriber(id: 2, user: "yes"))
      #expect(
        try Tollgate_V1_IsSubscriberResponse(serializedBytes: try await connection.receive(frames: 1)[0].payload).active
      )

      registry.replace(with: [
        CallerKey(name: "reader", keySha256: CallerKey.digest(of: Self.readerKey), scopes: [.submit])
      ])
      try await connection.send(RequestFrames.isSubscriber(id: 3, user: "yes"))
      let narrowed = try Tollgate_V1_IsSubscriberResponse(
        serializedBytes: try await connection.receive(frames: 1)[0].payload)
      #expect(narrowed.error.code == .permissionDenied)

      registry.replace(with: [])
      try await connection.send(Self.submit(id: 4))
      let removed = try Tollgate_V1_SubmitPurchaseResponse(
        serializedBytes: try await connection.receive(frames: 1)[0].payload)
      #expect(removed.error.code == .unauthenticated)
      try await connection.close()
    }
  }

  @Test("a Unix domain socket listener serves the same calls, with the same authentication")
  func unixSocket() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("tollgate.sock")
    try await withServer(listeners: [.unix(path: path)]) { server, _ in
      #expect(server.listeners.map(\.address) == [.unix(path: path)])
      let bytes =
        try RequestFrames.isSubscriber(id: 1, user: "yes")
        + Self.authenticate(id: 2, caller: "reader", key: Self.readerKey)
        + RequestFrames.isSubscriber(id: 3, user: "yes")
      let responses = try await RawWire.exchange(unixSocket: path, chunks: [bytes], frames: 3)
      #expect(responses.map(\.requestId) == [1, 2, 3])
      #expect(
        try Tollgate_V1_IsSubscriberResponse(serializedBytes: responses[0].payload).error.code == .unauthenticated)
      #expect(try Tollgate_V1_IsSubscriberResponse(serializedBytes: responses[2].payload).active)
    }
    #expect(!FileManager.default.fileExists(atPath: path), "the socket file is removed on close")
  }

  @Test("without callers, Authenticate succeeds with every scope and calls need none")
  func openAccess() async throws {
    let server = try RPCServer.bind(
      host: "127.0.0.1", port: 0,
      handler: {
        let h = FakeEntitlementsHandler()
        h.release()
        return h
      }(),
      logger: Self.logger)
    async let serving: Void = server.run()
    let bytes =
      try RequestFrames.isSubscriber(id: 1, user: "yes") + Self.authenticate(id: 2, caller: "anyone", key: "x")
    let responses = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 2)
    #expect(try Tollgate_V1_IsSubscriberResponse(serializedBytes: responses[0].payload).active)
    let answer = try Tollgate_V1_AuthenticateResponse(serializedBytes: responses[1].payload)
    #expect(!answer.hasError)
    #expect(answer.scopes == ["read", "submit", "admin"])
    try await server.close()
    try await serving
  }
}

import Logging
import SwiftProtobuf
import Testing
import TollgateCallers
import TollgateContract
import TollgateServer
import TollgateTesting
import TollgateWire

/// The support and admin methods (6 to 12) on the fast port, over a real loopback socket: the
/// `admin` scope is checked before the handler, an admin caller reaches it with its request and
/// its name, and a replica without an admin handler answers UNAVAILABLE.
@Suite("RPC server: the admin methods over loopback")
struct AdminDispatchTests {
  static let logger = Logger(label: "test.rpc.admin")
  static let readerKey = "reader-secret"
  static let adminKey = "admin-secret"

  static let registry = CallerRegistry([
    CallerKey(name: "reader", keySha256: CallerKey.digest(of: readerKey), scopes: [.read, .submit]),
    CallerKey(name: "support", keySha256: CallerKey.digest(of: adminKey), scopes: [.admin]),
  ])

  static let adminMethods: [EntitlementsMethod] = [
    .lookUp, .getTimeline, .explain, .grant, .revoke, .reverify, .eraseUser,
  ]

  /// One request of each admin method, with fields the fake echoes.
  static func request(_ method: EntitlementsMethod) -> any SwiftProtobuf.Message {
    switch method {
    case .lookUp:
      Tollgate_V1_LookUpRequest.with {
        $0.identifier = "2000000123"
        $0.kind = .appStoreTransactionID
      }
    case .getTimeline: Tollgate_V1_GetTimelineRequest.with { $0.userID = "u-1" }
    case .explain:
      Tollgate_V1_ExplainRequest.with {
        $0.userID = "u-1"
        $0.entitlement = "pro"
      }
    case .grant:
      Tollgate_V1_GrantRequest.with {
        $0.userID = "u-1"
        $0.entitlement = "pro"
        $0.until = "2027-01-01T00:00:00.000Z"
        $0.note = "goodwill"
        $0.requestedBy = "alice"
      }
    case .revoke:
      Tollgate_V1_RevokeRequest.with {
        $0.userID = "u-1"
        $0.entitlement = "pro"
      }
    case .reverify: Tollgate_V1_ReverifyRequest.with { $0.userID = "u-1" }
    case .eraseUser:
      Tollgate_V1_EraseUserRequest.with {
        $0.userID = "u-1"
        $0.dryRun = true
      }
    default: Tollgate_V1_HealthRequest()
    }
  }

  static func frame(_ method: EntitlementsMethod, id: UInt32) throws -> [UInt8] {
    RawWire.request(methodIndex: method.rawValue, requestId: id, payload: try request(method).serializedBytes())
  }

  /// The `error` of an admin method's response.
  static func error(_ method: EntitlementsMethod, _ payload: [UInt8]) throws -> Tollgate_V1_Error? {
    let error: Tollgate_V1_Error
    switch method {
    case .lookUp: error = try Tollgate_V1_LookUpResponse(serializedBytes: payload).error
    case .getTimeline: error = try Tollgate_V1_GetTimelineResponse(serializedBytes: payload).error
    case .explain: error = try Tollgate_V1_ExplainResponse(serializedBytes: payload).error
    case .grant: error = try Tollgate_V1_GrantResponse(serializedBytes: payload).error
    case .revoke: error = try Tollgate_V1_RevokeResponse(serializedBytes: payload).error
    case .reverify: error = try Tollgate_V1_ReverifyResponse(serializedBytes: payload).error
    case .eraseUser: error = try Tollgate_V1_EraseUserResponse(serializedBytes: payload).error
    default: return nil
    }
    return error.code == .unspecified ? nil : error
  }

  func withServer(
    admin: FakeAdminHandler?, access: CallerAccess = .callers(registry), _ body: (RPCServer) async throws -> Void
  ) async throws {
    var config = RPCServer.Config.defaults
    config.access = access
    let server = try RPCServer.bind(
      listeners: [.tcp(host: "127.0.0.1", port: 0)], config: config, handler: AdminServingHandler(admin),
      logger: Self.logger)
    async let serving: Void = server.run()
    do {
      try await body(server)
    } catch {
      try await server.close()
      throw error
    }
    try await server.close()
    try await serving
  }

  @Test("a caller without the admin scope gets PERMISSION_DENIED for every admin method; the handler sees none")
  func readerIsRefused() async throws {
    let fake = FakeAdminHandler()
    try await withServer(admin: fake) { server in
      var bytes = try RawWire.authenticate(id: 1, caller: "reader", key: Self.readerKey)
      for (offset, method) in Self.adminMethods.enumerated() {
        bytes += try Self.frame(method, id: UInt32(10 + offset))
      }
      let answers = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 1 + Self.adminMethods.count)
      for (offset, method) in Self.adminMethods.enumerated() {
        let answer = try #require(answers.first { $0.requestId == UInt32(10 + offset) })
        #expect(answer.status == 0)
        #expect(answer.methodIndex == method.rawValue)
        let error = try #require(try Self.error(method, answer.payload), "\(method.name) was not refused")
        #expect(error.code == .permissionDenied)
        #expect(error.message.contains(method.name) && error.message.contains("admin"), "\(error.message)")
      }
      #expect(fake.recorded.isEmpty)
    }
  }

  @Test("before Authenticate an admin method is UNAUTHENTICATED")
  func unauthenticated() async throws {
    let fake = FakeAdminHandler()
    try await withServer(admin: fake) { server in
      let answers = try await RawWire.exchange(port: server.port, chunks: [try Self.frame(.grant, id: 3)], frames: 1)
      #expect(try Self.error(.grant, answers[0].payload)?.code == .unauthenticated)
      #expect(fake.recorded.isEmpty)
    }
  }

  @Test("an admin caller reaches the admin handler with each request and its name, and gets its answers")
  func adminReachesHandler() async throws {
    let fake = FakeAdminHandler()
    try await withServer(admin: fake) { server in
      var bytes = try RawWire.authenticate(id: 1, caller: "support", key: Self.adminKey)
      for (offset, method) in Self.adminMethods.enumerated() {
        bytes += try Self.frame(method, id: UInt32(10 + offset))
      }
      let answers = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 1 + Self.adminMethods.count)
      func payload(_ method: EntitlementsMethod) throws -> [UInt8] {
        let index = try #require(Self.adminMethods.firstIndex(of: method))
        let answer = try #require(answers.first { $0.requestId == UInt32(10 + index) })
        #expect(answer.status == 0 && answer.methodIndex == method.rawValue)
        return answer.payload
      }
      let lookUp = try Tollgate_V1_LookUpResponse(serializedBytes: payload(.lookUp))
      #expect(lookUp.matches.map(\.transactionID) == ["2000000123"])
      #expect(lookUp.matches.first?.matchedAs == .appStoreTransactionID)
      let timeline = try Tollgate_V1_GetTimelineResponse(serializedBytes: payload(.getTimeline))
      #expect(timeline.userID == "u-1" && timeline.entries.map(\.kind) == ["period"])
      let explain = try Tollgate_V1_ExplainResponse(serializedBytes: payload(.explain))
      #expect(explain.entitlement == "pro" && explain.active && explain.sources.first?.decides == true)
      let grant = try Tollgate_V1_GrantResponse(serializedBytes: payload(.grant))
      #expect(grant.grantID == "grant-u-1-pro")
      #expect(grant.entitlements.first?.productID == "2027-01-01T00:00:00.000Z|goodwill|alice")
      #expect(try Tollgate_V1_RevokeResponse(serializedBytes: payload(.revoke)).revoked == 1)
      #expect(try Tollgate_V1_ReverifyResponse(serializedBytes: payload(.reverify)).subscriptions == 3)
      let erase = try Tollgate_V1_EraseUserResponse(serializedBytes: payload(.eraseUser))
      #expect(erase.dryRun && erase.events == 7 && erase.entitlementRecords == 4)
      #expect(Set(fake.recorded.map(\.method)) == Set(Self.adminMethods.map(\.name)))
      #expect(fake.recorded.allSatisfy { $0.caller == "support" })
    }
  }

  @Test("an admin call is answered off the event loop: a Health sent after a waiting Grant is answered first")
  func answeredOffTheLoop() async throws {
    let fake = FakeAdminHandler(holdGrant: true)
    try await withServer(admin: fake) { server in
      let bytes =
        try RawWire.authenticate(id: 1, caller: "support", key: Self.adminKey) + Self.frame(.grant, id: 2)
        + RawWire.request(methodIndex: EntitlementsMethod.health.rawValue, requestId: 3, payload: [])
      let answers = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 3)
      #expect(answers.map(\.requestId) == [1, 3, 2])
      #expect(try Tollgate_V1_GrantResponse(serializedBytes: answers[2].payload).grantID == "grant-u-1-pro")
    }
  }

  @Test("a replica without an admin handler answers every admin method UNAVAILABLE")
  func noAdmin() async throws {
    try await withServer(admin: nil) { server in
      var bytes = try RawWire.authenticate(id: 1, caller: "support", key: Self.adminKey)
      for (offset, method) in Self.adminMethods.enumerated() {
        bytes += try Self.frame(method, id: UInt32(10 + offset))
      }
      let answers = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 1 + Self.adminMethods.count)
      for (offset, method) in Self.adminMethods.enumerated() {
        let answer = try #require(answers.first { $0.requestId == UInt32(10 + offset) })
        let error = try #require(try Self.error(method, answer.payload))
        #expect(error.code == .unavailable)
        #expect(error.message == "this replica serves no admin calls")
      }
    }
  }

  @Test("an undecodable admin request gets SERVICE_FAILED and the connection keeps working")
  func undecodable() async throws {
    let fake = FakeAdminHandler()
    try await withServer(admin: fake) { server in
      let bytes =
        try RawWire.authenticate(id: 1, caller: "support", key: Self.adminKey)
        + RawWire.request(
          methodIndex: EntitlementsMethod.eraseUser.rawValue, requestId: 2, payload: [0xFF, 0xFF, 0xFF])
        + Self.frame(.reverify, id: 3)
      let answers = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 3)
      let failed = try #require(answers.first { $0.requestId == 2 })
      #expect(failed.status == 1)
      let reverified = try #require(answers.first { $0.requestId == 3 })
      #expect(try Tollgate_V1_ReverifyResponse(serializedBytes: reverified.payload).subscriptions == 3)
      #expect(fake.recorded.map(\.method) == ["Reverify"])
    }
  }

  @Test("the method table: indices 6 to 12 in proto order, each an admin operation")
  func methodTable() {
    #expect(Self.adminMethods.map(\.rawValue) == Array(6...12))
    #expect(
      Self.adminMethods.map(\.name) == ["LookUp", "GetTimeline", "Explain", "Grant", "Revoke", "Reverify", "EraseUser"])
    #expect(Self.adminMethods.map(\.isRead) == [true, true, true, false, false, false, false])
  }
}

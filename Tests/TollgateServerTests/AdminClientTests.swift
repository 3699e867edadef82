import Logging
import Testing
import TollgateCallers
import TollgateClient
import TollgateContract
import TollgateServer
import TollgateTesting

/// `TollgateClient`'s admin calls (TollgateClient+Admin.swift) against a real `RPCServer` with a
/// fake admin handler: typed answers, errors thrown, and the failover rule for reads and writes.
@Suite("TollgateClient: the admin calls")
struct AdminClientTests {
  static let logger = Logger(label: "test.client.admin")

  /// Servers with the callers of AdminDispatchTests, one per entry of `admins` (nil: it serves no
  /// admin calls), while `body` runs.
  func withServers(_ admins: [FakeAdminHandler?], _ body: ([RPCServer]) async throws -> Void) async throws {
    var config = RPCServer.Config.defaults
    config.access = .callers(AdminDispatchTests.registry)
    let servers = try admins.map {
      try RPCServer.bind(
        listeners: [.tcp(host: "127.0.0.1", port: 0)], config: config, handler: AdminServingHandler($0),
        logger: Self.logger)
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for server in servers { group.addTask { try await server.run() } }
      do {
        try await body(servers)
      } catch {
        for server in servers { try await server.close() }
        throw error
      }
      for server in servers { try await server.close() }
      try await group.waitForAll()
    }
  }

  static func client(_ servers: [RPCServer], caller: String, key: String) throws -> TollgateClient {
    var config = TollgateClient.Config.defaults
    config.credentials = .init(caller: caller, key: key)
    return try TollgateClient(
      endpoints: servers.map { .tcp(host: "127.0.0.1", port: $0.port) }, config: config)
  }

  @Test("an admin caller gets each typed answer; a response's error is thrown with its code")
  func typedCalls() async throws {
    let fake = FakeAdminHandler()
    try await withServers([fake]) { servers in
      let client = try Self.client(servers, caller: "support", key: AdminDispatchTests.adminKey)
      let lookUp = try await client.lookUp(identifier: "GPA.1234-5678", kind: .googlePlayOrderID)
      #expect(lookUp.matches.map(\.transactionID) == ["GPA.1234-5678"])
      #expect(lookUp.matches.first?.matchedAs == .googlePlayOrderID)
      #expect(try await client.timeline(userId: "u-2").entries.map(\.kind) == ["period"])
      #expect(try await client.explain(userId: "u-2", entitlement: "pro").active)
      let grant = try await client.grant(
        userId: "u-2", entitlement: "pro", until: "2027-01-01T00:00:00.000Z", note: "n", requestedBy: "bob")
      #expect(grant.grantID == "grant-u-2-pro")
      #expect(grant.entitlements.first?.productID == "2027-01-01T00:00:00.000Z|n|bob")
      #expect(try await client.revoke(userId: "u-2", entitlement: "pro").revoked == 1)
      #expect(try await client.reverify(userId: "u-22").subscriptions == 4)
      let erase = try await client.eraseUser(userId: "u-2", dryRun: false, requestedBy: "bob")
      #expect(!erase.dryRun && erase.submissions == 3)

      let missing = await #expect(throws: TollgateClientError.self) {
        try await client.timeline(userId: "nobody")
      }
      #expect(missing?.code == .notFound)
      let nothingOpen = await #expect(throws: TollgateClientError.self) {
        try await client.revoke(userId: "u-2", entitlement: "basic")
      }
      #expect(nothingOpen?.code == .notFound)
      #expect(fake.recorded.allSatisfy { $0.caller == "support" })
      #expect(fake.recorded.count == 9)
      await client.close()
    }
  }

  @Test("a caller without the admin scope gets PERMISSION_DENIED, and the handler sees nothing")
  func readerIsRefused() async throws {
    let fake = FakeAdminHandler()
    try await withServers([fake]) { servers in
      let client = try Self.client(servers, caller: "reader", key: AdminDispatchTests.readerKey)
      let refused = await #expect(throws: TollgateClientError.self) {
        try await client.grant(userId: "u", entitlement: "pro", until: "2027-01-01T00:00:00.000Z")
      }
      #expect(refused?.code == .permissionDenied)
      let refusedRead = await #expect(throws: TollgateClientError.self) {
        try await client.lookUp(identifier: "1")
      }
      #expect(refusedRead?.code == .permissionDenied)
      #expect(fake.recorded.isEmpty)
      await client.close()
    }
  }

  @Test("with a replica that serves no admin calls, writes answered UNAVAILABLE are not resent; reads go to the other")
  func failover() async throws {
    let fake = FakeAdminHandler()
    try await withServers([nil, fake]) { servers in
      let client = try Self.client(servers, caller: "support", key: AdminDispatchTests.adminKey)
      var granted = 0
      var unavailable = 0
      for _ in 0..<4 {
        do {
          _ = try await client.grant(userId: "u", entitlement: "pro", until: "2027-01-01T00:00:00.000Z")
          granted += 1
        } catch let error as TollgateClientError where error.code == .unavailable {
          #expect(error.message == "this replica serves no admin calls")
          unavailable += 1
        }
      }
      for round in 0..<4 {
        let answer = try await client.lookUp(identifier: "id-\(round)")
        #expect(answer.matches.map(\.transactionID) == ["id-\(round)"])
      }
      // Round robin from the first replica: every other write lands on the one without admin and
      // stays refused. The reads after them that land there are tried on the other (which then
      // backs the refusing replica off).
      #expect(granted == 2 && unavailable == 2)
      #expect(fake.recorded.filter { $0.method == "Grant" }.count == 2)
      #expect(fake.recorded.filter { $0.method == "LookUp" }.count == 4)
      await client.close()
    }
  }
}

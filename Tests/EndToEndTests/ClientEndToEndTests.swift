import Logging
import NIOCore
import NIOPosix
import Testing
import TollgateClient
import TollgateCore
import TollgateSQLite
import TollgateServer
import TollgateService
import TollgateStorage
import TollgateTesting

@Suite("Swift client end to end")
struct ClientEndToEndTests {
  @Test("many concurrent calls share one connection and each gets its own answer")
  func concurrentCalls() async throws {
    let expires = SystemClock.nowMs() + 3_600_000
    let seed = (0..<50).filter { $0.isMultiple(of: 2) }.map {
      EntitlementRecord.sample(userId: "u\($0)", expiresAtMs: expires)
    }
    try await withService(seed: seed) { service in
      let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
        for n in 0..<50 {
          group.addTask { (n, try await service.client.isSubscriber(userId: "u\(n)", entitlement: "premium").active) }
        }
        return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
      }
      #expect(results.count == 50)
      #expect(results.allSatisfy { $0.value == $0.key.isMultiple(of: 2) })
    }
  }

  @Test("a call times out with DEADLINE_EXCEEDED when the server never answers")
  func timeout() async throws {
    // A listener that accepts and reads but never writes.
    let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .bind(host: "127.0.0.1", port: 0).get()
    let client = TollgateClient(host: "127.0.0.1", port: silent.localAddress!.port!)
    do {
      _ = try await client.isSubscriber(userId: "u", entitlement: "premium", timeout: .milliseconds(100))
      Issue.record("expected a timeout")
    } catch let error as TollgateClientError {
      #expect(error.code == .deadlineExceeded)
    }
    await client.close()
    try await silent.close()
  }

  @Test("with no server the call fails fast with CONNECTION_FAILED; after a server restart the client reconnects")
  func reconnect() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let storage = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    try await storage.replaceEntitlements(
      userId: "u", with: [.sample(userId: "u", expiresAtMs: SystemClock.nowMs() + 3_600_000)], reason: "t", nowMs: 1)
    let first = try await EntitlementServer.start(
      config: .init(host: "127.0.0.1", port: 0), storage: storage, logger: Logger(label: "e2e"))
    async let firstServing: Void = first.run()
    let port = first.port
    let client = TollgateClient(host: "127.0.0.1", port: port)
    #expect(try await client.isSubscriber(userId: "u", entitlement: "premium").active)

    // Kill the listener and the open connection.
    await first.shutdown()
    try await firstServing
    await client.close()
    do {
      _ = try await client.health()
      Issue.record("expected a connection failure")
    } catch let error as TollgateClientError {
      #expect(error.code == .connectionFailed)
      #expect(error.code.isRetryable)
    }

    let second = try await EntitlementServer.start(
      config: .init(host: "127.0.0.1", port: port), storage: storage, logger: Logger(label: "e2e"))
    async let secondServing: Void = second.run()
    #expect(try await client.isSubscriber(userId: "u", entitlement: "premium").active)
    await client.close()
    await second.shutdown()
    try await secondServing
  }
}

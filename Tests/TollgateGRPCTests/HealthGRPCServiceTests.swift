import GRPCCore
import GRPCInProcessTransport
import Logging
import Testing
import TollgateContract
import TollgateTesting

@testable import TollgateGRPC

@Suite("gRPC door: grpc.health.v1 (in process)")
struct HealthGRPCServiceTests {
  typealias Status = Grpc_Health_V1_HealthCheckResponse.ServingStatus

  static func request(_ service: String) -> Grpc_Health_V1_HealthCheckRequest {
    var request = Grpc_Health_V1_HealthCheckRequest()
    request.service = service
    return request
  }

  static func status(_ health: HealthClient, _ service: String) async throws -> Status {
    try await health.check(request(service)).status
  }

  @Test("Check needs no key: the server and tollgate.v1.Entitlements follow Health; another name is NOT_FOUND")
  func check() async throws {
    let handler = FakeEntitlementsHandler()
    try await withInProcessDoor(handler: handler) { _, health in
      let whole = try await Self.status(health, "")
      #expect(whole == .serving)
      let service = try await Self.status(health, "tollgate.v1.Entitlements")
      #expect(service == .serving)
      handler.status.withLock { $0 = .degraded }
      let degraded = try await Self.status(health, "")
      #expect(degraded == .serving)
      handler.status.withLock { $0 = .notServing }
      let down = try await Self.status(health, "")
      #expect(down == .notServing)
      let unknown = await rpcError { try await health.check(Self.request("tollgate.v1.Other")) }
      #expect(unknown?.code == .notFound)
    }
  }

  @Test("Watch sends the status, then each change, and NOT_SERVING when the door shuts down, then ends")
  func watch() async throws {
    let handler = FakeEntitlementsHandler()
    let shutdown = DoorShutdown()
    try await withInProcessDoor(handler: handler, shutdown: shutdown) { _, health in
      let seen = try await health.watch(Self.request("")) { response in
        var seen: [Status] = []
        for try await message in response.messages {
          seen.append(message.status)
          switch seen.count {
          case 1: handler.status.withLock { $0 = .notServing }
          case 2: handler.status.withLock { $0 = .degraded }
          case 3: shutdown.begin()
          default: break
          }
        }
        return seen
      }
      #expect(seen == [.serving, .notServing, .serving, .notServing])
      // After the shutdown began, Check says NOT_SERVING too.
      handler.status.withLock { $0 = .serving }
      let afterShutdown = try await Self.status(health, "")
      #expect(afterShutdown == .notServing)
    }
  }

  @Test("Watch of an unknown service answers SERVICE_UNKNOWN and keeps watching")
  func watchUnknown() async throws {
    let shutdown = DoorShutdown()
    try await withInProcessDoor(shutdown: shutdown) { _, health in
      let seen = try await health.watch(Self.request("nope")) { response in
        var seen: [Status] = []
        for try await message in response.messages {
          seen.append(message.status)
          if seen.count == 1 { shutdown.begin() }
        }
        return seen
      }
      #expect(seen == [.serviceUnknown, .notServing])
    }
  }

  @Test("Watch calls beyond the door's maximum are RESOURCE_EXHAUSTED; one that ended frees its place")
  func watcherCap() async throws {
    let shutdown = DoorShutdown()
    let watchers = HealthWatchers(maximum: 1)
    let handler = FakeEntitlementsHandler()
    let gate = TestCallers.gate()
    let transport = InProcessTransport()
    let services = GRPCDoor.services(
      handler: handler, gate: gate, shutdown: shutdown, healthPollInterval: .milliseconds(20),
      healthWatchers: watchers)
    let interceptor = CallerInterceptor(gate: gate, logger: Logger(label: "test.grpc"))
    try await withGRPCServer(transport: transport.server, services: services, interceptors: [interceptor]) { _ in
      try await withGRPCClient(transport: transport.client) { grpc in
        let health = HealthClient(wrapping: grpc)
        let second = try await health.watch(Self.request("")) { response in
          var messages = response.messages.makeAsyncIterator()
          _ = try await messages.next()
          // The one place is taken while this watcher runs.
          return await rpcError {
            try await health.watch(Self.request("")) { more in
              for try await _ in more.messages {}
            }
          }
        }
        #expect(second?.code == .resourceExhausted)
        shutdown.begin()
        let ended = await eventually(timeout: .seconds(30)) { watchers.count == 0 }
        #expect(ended != nil)
      }
    }
  }
}

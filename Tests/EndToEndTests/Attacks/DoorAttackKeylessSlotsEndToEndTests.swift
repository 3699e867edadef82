import Foundation
import Testing
import TollgateTesting

/// Issue 28, the harder half of `DoorAttackSlotsEndToEndTests`: strangers that keep their connections
/// busy with the calls that need no key (`GET /healthz`, `grpc.health.v1.Health/Watch`) are never
/// idle, so no idle or head deadline ends them. A connection that has made no keyed call has proved
/// nothing, as on the fast port (`service.unauthenticatedTimeoutMs`, eviction at the cap): 8 of them
/// holding every slot of a door must not lock a caller out for long.
@Suite("tollgate serve's doors: strangers busy with keyless health calls lock no caller out", .serialized)
struct DoorAttackKeylessSlotsEndToEndTests {
  static let healthz = Array("GET /healthz HTTP/1.1\r\nHost: tollgate\r\n\r\n".utf8)

  /// Waits up to `timeout` for `answered`, running `keepBusy` every half second meanwhile.
  static func answered(
    within timeout: Duration, keepBusy: () -> Void, answered: () async -> Bool
  ) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var busyAt = clock.now
    while clock.now < deadline {
      if clock.now >= busyAt {
        keepBusy()
        busyAt = clock.now + .milliseconds(500)
      }
      if await answered() { return true }
      try? await Task.sleep(for: .milliseconds(100))
    }
    return false
  }

  @Test("HTTP: 8 strangers asking GET /healthz twice a second leave a caller answered within 15 s")
  func httpHealthzKeepers() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let server = try await DoorAttackSlotsEndToEndTests.serve(in: dir)
    defer { server.process.terminate() }
    #expect(await DoorAttackSlotsEndToEndTests.httpAnswered(port: server.http), "the door answers before the attack")

    let strangers = SocketFlood()
    defer { strangers.closeAll() }
    try strangers.connect(count: DoorAttackSlotsEndToEndTests.slots, port: server.http, sending: Self.healthz)
    try await Task.sleep(for: .milliseconds(300))
    let answered = await Self.answered(
      within: .seconds(15), keepBusy: { strangers.sendToAll(Self.healthz) },
      answered: { await DoorAttackSlotsEndToEndTests.httpAnswered(port: server.http) })
    #expect(answered, "a caller was locked out for 15 s by 8 keyless connections asking /healthz")
  }

  @Test("gRPC: 8 strangers each holding a keyless health Watch open leave a caller answered within 15 s")
  func grpcWatchKeepers() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let server = try await DoorAttackSlotsEndToEndTests.serve(in: dir)
    defer { server.process.terminate() }
    #expect(await DoorAttackSlotsEndToEndTests.grpcAnswered(port: server.grpc), "the door answers before the attack")

    let strangers = SocketFlood()
    defer { strangers.closeAll() }
    try strangers.connect(
      count: DoorAttackSlotsEndToEndTests.slots, port: server.grpc,
      sending: DoorAttackWatchEndToEndTests.watchers(streams: 1))
    try await Task.sleep(for: .milliseconds(300))
    let answered = await Self.answered(
      within: .seconds(15), keepBusy: {},
      answered: { await DoorAttackSlotsEndToEndTests.grpcAnswered(port: server.grpc) })
    #expect(answered, "a caller was locked out for 15 s by 8 keyless connections each watching the health")
  }
}

import Logging
import TollgateClient
import TollgateCore
import TollgateSQLite
import TollgateServer
import TollgateService
import TollgateStorage
import TollgateTesting

/// A real `EntitlementServer` on a loopback port over a real SQLite file, with a client; run by
/// `withService`.
struct RunningService {
  let dir: TemporaryDirectory
  let storage: SQLiteEntitlementStorage
  let server: EntitlementServer
  let client: TollgateClient
  var databasePath: String { dir.file("tollgate.sqlite") }

  static func start(
    clock: ManualClock? = nil, rpc: RPCServer.Config = .defaults, seed: [EntitlementRecord] = []
  ) async throws -> RunningService {
    let dir = try TemporaryDirectory()
    let storage = try SQLiteEntitlementStorage(path: dir.file("tollgate.sqlite"), nowMs: 1)
    for (user, records) in Dictionary(grouping: seed, by: \.userId) {
      try await storage.replaceEntitlements(userId: user, with: records, reason: "seed", nowMs: 1)
    }
    let server = try await EntitlementServer.start(
      config: .init(host: "127.0.0.1", port: 0, rpc: rpc), storage: storage,
      nowMs: clock?.function ?? SystemClock.nowMs, logger: Logger(label: "e2e"))
    let client = TollgateClient(host: "127.0.0.1", port: server.port)
    return RunningService(dir: dir, storage: storage, server: server, client: client)
  }

  func stop() async {
    await client.close()
    await server.shutdown()
  }
}

/// Runs `body` against a fresh service and always stops it.
func withService(
  clock: ManualClock? = nil, rpc: RPCServer.Config = .defaults, seed: [EntitlementRecord] = [],
  _ body: (RunningService) async throws -> Void
) async throws {
  let service = try await RunningService.start(clock: clock, rpc: rpc, seed: seed)
  defer { service.dir.remove() }
  try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await service.server.run() }
    do {
      try await body(service)
    } catch {
      await service.stop()
      throw error
    }
    await service.stop()
    try await group.waitForAll()
  }
}

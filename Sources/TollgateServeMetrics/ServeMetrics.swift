import TollgateIndex
import TollgateServer
import TollgateService

/// Where `serve`'s metrics come from at a scrape: the fast port's loops (asked through their
/// mailboxes, `RPCServer.metrics()`), each other door's `DoorCallRecorder`, and the index and
/// its change-feed follower. Nothing here runs between scrapes.
public struct ServeMetrics: Sendable {
  /// A door beside the fast port (gRPC, HTTP): what it recorded, and its open connections now.
  public struct Door: Sendable {
    public var recorder: DoorCallRecorder
    public var openConnections: @Sendable () -> Int
    /// Refusals the door counts itself rather than through `recorder` (gRPC's connection cap).
    public var refusedConnections: @Sendable () -> [String: UInt64]

    public init(
      recorder: DoorCallRecorder, openConnections: @escaping @Sendable () -> Int,
      refusedConnections: @escaping @Sendable () -> [String: UInt64] = { [:] }
    ) {
      self.recorder = recorder
      self.openConnections = openConnections
      self.refusedConnections = refusedConnections
    }
  }

  let server: EntitlementServer
  let doors: [Door]
  let nowMs: @Sendable () -> Int64

  public init(server: EntitlementServer, doors: [Door], nowMs: @escaping @Sendable () -> Int64) {
    self.server = server
    self.doors = doors
    self.nowMs = nowMs
  }

  /// Everything, read now.
  public func snapshot() async -> ServeMetricsSnapshot {
    var all = [
      ServeMetricsSnapshot.Door(
        door: .fast, counted: await server.rpcServer.metrics(), openConnections: server.rpcServer.openConnections)
    ]
    for door in doors {
      var counted = door.recorder.snapshot()
      counted.refusedConnections.merge(door.refusedConnections(), uniquingKeysWith: +)
      all.append(.init(door: door.recorder.door, counted: counted, openConnections: door.openConnections()))
    }
    let position = server.follower.currentPosition
    let lagMs = position.lagMs(at: nowMs())
    return ServeMetricsSnapshot(
      doors: all, indexUsers: server.index.userCount, indexRecords: server.index.recordCount,
      feedApplied: position.appliedSeq, feedHead: position.headSeq, feedLagSeconds: Double(lagMs) / 1_000)
  }

  /// Whether this replica should get traffic now (`/readyz`).
  public func readiness() -> ServeReadiness {
    ServeReadiness(follower: server.follower, nowMs: nowMs())
  }
}

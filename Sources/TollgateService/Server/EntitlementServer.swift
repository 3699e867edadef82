import Logging
import NIOCore
import ServiceLifecycle
import TollgateCore
import TollgateRPC
import TollgateStorage

/// `tollgate serve` as a value: loads the index, follows the change feed and answers RPCs until
/// graceful shutdown.
public final class EntitlementServer: Service, Sendable {
  public struct Config: Sendable {
    public var host: String
    public var port: Int
    public var rpc: RPCServer.Config
    public var feed: ChangeFeedFollower.Config
    public var service: EntitlementsService.Config

    public init(
      host: String, port: Int, rpc: RPCServer.Config = .defaults, feed: ChangeFeedFollower.Config = .defaults,
      service: EntitlementsService.Config = .defaults
    ) {
      self.host = host
      self.port = port
      self.rpc = rpc
      self.feed = feed
      self.service = service
    }
  }

  public let index: EntitlementIndex
  public let follower: ChangeFeedFollower
  public let rpcServer: RPCServer

  private init(index: EntitlementIndex, follower: ChangeFeedFollower, rpcServer: RPCServer) {
    self.index = index
    self.follower = follower
    self.rpcServer = rpcServer
  }

  /// Loads the index from storage, then binds the listener: the server answers from full state
  /// from its first request.
  public static func start(
    config: Config, storage: any EntitlementStorage, nowMs: @escaping @Sendable () -> Int64 = SystemClock.nowMs,
    threads: Int = System.coreCount, logger: Logger
  ) async throws -> EntitlementServer {
    let index = EntitlementIndex()
    let follower = ChangeFeedFollower(storage: storage, index: index, config: config.feed, nowMs: nowMs, logger: logger)
    try await follower.loadSnapshot()
    let service = EntitlementsService(
      index: index, follower: follower, storage: storage, config: config.service, nowMs: nowMs, logger: logger)
    let rpcServer = try await RPCServer.bind(
      host: config.host, port: config.port, config: config.rpc, handler: service, threads: threads, logger: logger)
    logger.info("serving", metadata: ["rpc.address": "\(rpcServer.localAddress)"])
    return EntitlementServer(index: index, follower: follower, rpcServer: rpcServer)
  }

  public var port: Int { rpcServer.port }

  /// Follows the change feed until graceful shutdown, then stops accepting connections.
  public func run() async throws {
    try await follower.run()
    try? await rpcServer.close()
  }

  public func shutdown() async {
    try? await rpcServer.close()
  }
}

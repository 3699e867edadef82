import Logging
import ServiceLifecycle
import TollgateCore
import TollgateIndex
import TollgateServer
import TollgateStorage

/// `tollgate serve` as a `Service`: the index loaded from storage, the change-feed follower that
/// keeps it current and the RPC server that answers from it.
///
/// On graceful shutdown the RPC server stops first (stop accepting, drain the calls in flight)
/// and the follower after it, so a SubmitPurchase waiting to read its own write still sees it
/// land during the drain.
public final class EntitlementServer: Service, Sendable {
  public struct Config: Sendable {
    /// Where to listen: TCP addresses (in plaintext or TLS) and Unix sockets.
    public var listeners: [RPCListener]
    public var rpc: RPCServer.Config
    public var feed: ChangeFeedFollower.Config
    public var responder: EntitlementsResponder.Config
    /// This replica's name in `feed_readers` and how often it records its change-feed position
    /// there (`FeedPositionRecorder`): a fresh id per server, every 10 s, unless set.
    public var feedReader: FeedPositionRecorder.Config = .defaults
    /// The support and admin calls (TollgateSupport's `AdminResponder`), served by every door
    /// through the responder; nil: this replica answers them UNAVAILABLE (`serve --no-admin`).
    public var admin: (any AdminHandler)? = nil

    public init(
      host: String, port: Int, rpc: RPCServer.Config = .defaults, feed: ChangeFeedFollower.Config = .defaults,
      responder: EntitlementsResponder.Config = .defaults
    ) {
      self.init(listeners: [RPCListener(.tcp(host: host, port: port))], rpc: rpc, feed: feed, responder: responder)
    }

    public init(
      listeners: [RPCListener], rpc: RPCServer.Config = .defaults, feed: ChangeFeedFollower.Config = .defaults,
      responder: EntitlementsResponder.Config = .defaults
    ) {
      self.listeners = listeners
      self.rpc = rpc
      self.feed = feed
      self.responder = responder
    }
  }

  public let index: EntitlementIndex
  public let follower: ChangeFeedFollower
  public let rpcServer: RPCServer
  /// What answers the calls: the fast port's handler, and the one the other doors (HTTP, gRPC) call.
  public let responder: EntitlementsResponder
  /// Records the follower's position in `feed_readers`, so the feed is not pruned past it.
  public let feedReader: FeedPositionRecorder
  private let logger: Logger

  private init(
    index: EntitlementIndex, follower: ChangeFeedFollower, rpcServer: RPCServer, responder: EntitlementsResponder,
    feedReader: FeedPositionRecorder, logger: Logger
  ) {
    self.index = index
    self.follower = follower
    self.rpcServer = rpcServer
    self.responder = responder
    self.feedReader = feedReader
    self.logger = logger
  }

  /// Loads the index from storage, then binds the listener: the server answers from full state
  /// from its first request. Serving starts with `run()`.
  ///
  /// When the load fails, `start` throws, unless `waitForStorage` (a replica on a database server
  /// that may be down while it starts): it then binds anyway and answers every read with
  /// ERROR_CODE_UNAVAILABLE and Health with NOT_SERVING (saying why) until `run()`'s follower has
  /// loaded the index. It never answers from the empty index.
  public static func start(
    config: Config, storage: any EntitlementStorage, nowMs: @escaping @Sendable () -> Int64 = SystemClock.nowMs,
    threads: Int? = nil, waitForStorage: Bool = false, logger: Logger
  ) async throws -> EntitlementServer {
    let index = EntitlementIndex()
    let follower = ChangeFeedFollower(storage: storage, index: index, config: config.feed, nowMs: nowMs, logger: logger)
    do {
      try await follower.loadSnapshot()
    } catch  where waitForStorage {
      follower.recordLoadFailure(error)
      logger.error(
        "the index cannot be loaded: serving UNAVAILABLE until the storage answers",
        metadata: ["error": "\(error)"])
    }
    let responder = EntitlementsResponder(
      index: index, follower: follower, storage: storage, config: config.responder, admin: config.admin, nowMs: nowMs,
      logger: logger)
    let rpcServer = try RPCServer.bind(
      listeners: config.listeners, config: config.rpc, handler: responder, threads: threads, logger: logger)
    logger.info("serving", metadata: ["rpc.listeners": "\(rpcServer.listeners.map(\.address.description))"])
    let feedReader = FeedPositionRecorder(
      config: config.feedReader, follower: follower, storage: storage, nowMs: nowMs, logger: logger)
    return EntitlementServer(
      index: index, follower: follower, rpcServer: rpcServer, responder: responder, feedReader: feedReader,
      logger: logger)
  }

  public var port: Int { rpcServer.port }

  /// Follows the change feed, records its position (`FeedPositionRecorder`) and answers RPCs
  /// until graceful shutdown, then shuts down in order: the RPC server (stop accepting, drain),
  /// the position's row removed, then the follower. If one ends on its own, the others stop too.
  public func run() async throws {
    let group = ServiceGroup(
      configuration: .init(
        services: [
          .init(service: follower),
          .init(service: feedReader),
          // Closed by `shutdown()`: the group then stops the follower as graceful shutdown would.
          .init(service: rpcServer, successTerminationBehavior: .gracefullyShutdownGroup),
        ],
        logger: logger))
    try await group.run()
  }

  /// Stops serving (as graceful shutdown does) and returns once every connection is closed.
  public func shutdown() async {
    try? await rpcServer.close()
  }
}

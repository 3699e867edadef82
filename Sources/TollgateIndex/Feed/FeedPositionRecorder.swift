import Logging
import ServiceLifecycle
import TollgateStorage

/// Tells the database, every `interval`, where this replica's follower stands in the change feed
/// (`EntitlementStorage.recordFeedPosition`: its applied sequence and the time), so that the
/// worker's housekeeping never prunes an entry this replica has not read. The row names this
/// process run (`Config.readerId`); on graceful shutdown it is removed, and a replica that
/// crashed stops holding the feed once it has not been seen for the worker's
/// `feedReaderExpiryMs`. A replica whose position was pruned all the same (it was away longer
/// than that) finds the entry at its position missing and reloads its index (`ChangeFeedFollower`).
///
/// Nothing is recorded before the index is loaded: a replica that has not loaded reads a
/// snapshot, not the feed. A failed record is logged and made again at the next interval.
public struct FeedPositionRecorder: Service {
  public struct Config: Sendable {
    /// Names this replica's row in `feed_readers`: different for every process run
    /// (`readerId(host:processId:)`), so two replicas never share a row.
    public var readerId: String
    /// How often the position is recorded (housekeeping's `feedReaderExpiryMs` must be several
    /// times this: 10 s against 10 min by default).
    public var interval: Duration

    /// A fresh reader id (no host known) recording every 10 s.
    public static var defaults: Config {
      Config(readerId: FeedPositionRecorder.readerId(host: "replica", processId: nil), interval: .seconds(10))
    }

    public init(readerId: String, interval: Duration) {
      self.readerId = readerId
      self.interval = interval
    }
  }

  /// `host:pid:random`, for operators reading `feed_readers` (which machine and process is
  /// behind); the random part tells apart two runs with the same pid. The host is cut to 64
  /// characters.
  public static func readerId(host: String, processId: Int32?) -> String {
    let suffix = String(UInt32.random(in: .min ... .max), radix: 16)
    return "\(host.prefix(64)):\(processId.map(String.init) ?? "-"):\(suffix)"
  }

  public let config: Config
  private let follower: ChangeFeedFollower
  private let storage: any EntitlementStorage
  private let nowMs: @Sendable () -> Int64
  private let logger: Logger

  public init(
    config: Config, follower: ChangeFeedFollower, storage: any EntitlementStorage,
    nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) {
    self.config = config
    self.follower = follower
    self.storage = storage
    self.nowMs = nowMs
    self.logger = logger
  }

  /// Records now and every `interval` until graceful shutdown, then removes the row.
  public func run() async throws {
    await cancelWhenGracefulShutdown { await recordUntilCancelled() }
    do {
      try await storage.removeFeedReader(readerId: config.readerId)
    } catch {
      logger.notice(
        "the replica's change-feed position could not be removed; it stops holding the feed when it expires",
        metadata: ["feed.reader": "\(config.readerId)", "error": "\(error)"])
    }
  }

  /// Records the follower's position once, if its index is loaded.
  public func recordOnce() async throws {
    guard follower.isLoaded else { return }
    let seq = follower.currentPosition.appliedSeq
    try await storage.recordFeedPosition(readerId: config.readerId, seq: seq, nowMs: nowMs())
  }

  private func recordUntilCancelled() async {
    var failures = 0
    while !Task.isCancelled {
      do {
        try await recordOnce()
        if failures > 0 {
          logger.info("change-feed position recorded again", metadata: ["feed.failures": "\(failures)"])
        }
        failures = 0
      } catch  where !Task.isCancelled {
        failures += 1
        if failures == 1 || failures.isMultiple(of: 30) {
          logger.warning(
            "recording the change-feed position failed; the feed may be pruned past this replica if it lasts",
            metadata: ["feed.reader": "\(config.readerId)", "error": "\(error)", "feed.failures": "\(failures)"])
        }
      } catch {
        return  // cancelled
      }
      do { try await Task.sleep(for: config.interval) } catch { return }
    }
  }
}

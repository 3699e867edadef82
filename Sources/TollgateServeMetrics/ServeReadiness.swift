import Foundation
import TollgateCore
import TollgateHTTPListener
import TollgateIndex

/// `/readyz`: a replica is ready when its index is loaded, its change feed is fresh and its
/// storage is trusted (the database file is still the one it opened). The body names each check,
/// in the shape the worker's `/readyz` uses:
///
/// ```json
/// {"checks":{"changeFeed":{"ready":true},"index":{"ready":true},
///   "storage":{"ready":false,"reason":"…"}},"notReady":["storage"],"status":"not_ready"}
/// ```
public struct ServeReadiness: Sendable, Equatable {
  public struct Check: Sendable, Equatable {
    /// `index`, `changeFeed`, `storage`.
    public var name: String
    /// Nil when ready; why not otherwise.
    public var problem: String?
  }

  public var checks: [Check]

  public var isReady: Bool { checks.allSatisfy { $0.problem == nil } }

  /// The three checks from their inputs: why the index is not loaded (nil once it is), what is
  /// wrong with the storage's file, why the index is being reloaded, how long since the feed was
  /// last known to be read up to date, and how long is too long.
  public init(
    indexNotLoaded: String?, storageProblem: String?, reloading: String?, feedLagMs: Int64, staleAfterMs: Int64
  ) {
    var feed: String?
    if let reloading {
      feed = reloading
    } else if indexNotLoaded == nil, feedLagMs > staleAfterMs {
      feed = "the change feed was last read \(feedLagMs) ms ago (stale after \(staleAfterMs) ms)"
    }
    checks = [
      Check(name: "index", problem: indexNotLoaded),
      Check(name: "changeFeed", problem: feed),
      Check(name: "storage", problem: storageProblem),
    ]
  }

  /// The checks of a running replica's follower, now.
  public init(follower: ChangeFeedFollower, nowMs: Int64) {
    var notLoaded: String?
    if !follower.isLoaded {
      notLoaded =
        follower.notLoadedReason.map { "the index has not been loaded: \($0.reason)" }
        ?? "the index has not been loaded yet"
    }
    var storage: String?
    var reloading: String?
    switch follower.trouble {
    case .fileProblem(let reason): storage = reason
    case .reloading(let reason): reloading = reason
    case nil: break
    }
    let position = follower.currentPosition
    let lag = position.lagMs(at: nowMs)
    self.init(
      indexNotLoaded: notLoaded, storageProblem: storage, reloading: reloading, feedLagMs: lag,
      staleAfterMs: follower.config.staleAfter.milliseconds)
  }

  /// The body of `/readyz`.
  public var json: String {
    var checked: [String: Any] = [:]
    for check in checks {
      checked[check.name] = check.problem.map { ["ready": false, "reason": $0] as [String: Any] } ?? ["ready": true]
    }
    let body: [String: Any] = [
      "status": isReady ? "ready" : "not_ready", "checks": checked,
      "notReady": checks.filter { $0.problem != nil }.map(\.name),
    ]
    return ProbeJSON.text(body)
  }
}

import TollgateCore
import TollgateHTTPListener

/// The `worker` section: where it listens, how it paces itself.
public struct WorkerSettings: Sendable, Decodable, Hashable {
  /// The public HTTP address: store notifications (`/notifications/...`) only, HOST:PORT.
  public var listen: String = "127.0.0.1:7703"
  /// The operator's HTTP address: `/health` and `/metrics`, HOST:PORT; loopback by default.
  public var adminListen: String = "127.0.0.1:7704"
  /// Both listeners close a connection that has sent nothing for this long (keep-alive included).
  public var idleTimeoutMs: Int64 = 60_000
  /// Both listeners close a connection whose request head (request line and headers) is not
  /// complete this long after its first bytes arrived.
  public var headerTimeoutMs: Int64 = 10_000
  /// Both listeners close a connection whose request (head and body) is not complete this long
  /// after its first bytes arrived, answering 408 when nothing was answered yet: a body that never
  /// ends (an endless chunked one) cannot hold a connection.
  public var requestTimeoutMs: Int64 = 30_000
  /// A request body must keep arriving at this many bytes a second on average, counted from
  /// `bodyRateGraceMs` after its head: a body that trickles slower is answered 408 and its
  /// connection closed. 0 turns the rule off (`requestTimeoutMs` still holds).
  public var minBodyBytesPerSecond: Int = 1_024
  public var bodyRateGraceMs: Int64 = 5_000
  /// Open connections at once on the public listener (`listen`); a connection beyond it is
  /// closed as soon as it is accepted, before anything of it is read.
  public var maxConnections: Int = 256
  /// The same for the admin listener (`adminListen`).
  public var adminMaxConnections: Int = 32
  /// A notification body larger than this is refused (413) before it is read in full, and its
  /// connection closed; nothing of it is stored.
  public var maxNotificationBytes: Int = 1 << 20
  public var database: String?
  /// How often the inbox and the schedule are looked at.
  public var pollMs: Int64 = 50
  /// How long an item is leased to this worker; after that another run may take it over.
  public var leaseMs: Int64 = 60_000
  /// Re-verify every subscription at least this often (the slow sweep).
  public var sweepIntervalMs: Int64 = 86_400_000
  /// A chain whose access ended (expired, revoked) this long ago is dormant: it is re-verified
  /// every `dormantSweepIntervalMs` instead of on the daily sweep (a resubscription comes with a
  /// notification or a submission; the rare check catches one whose notification was lost).
  public var dormantAfterMs: Int64 = 60 * 86_400_000
  public var dormantSweepIntervalMs: Int64 = 30 * 86_400_000
  /// A chain whose access ended this long ago gets one last check and then none by the clock (the
  /// stores keep answering for old purchases only so long; a notification or a submission for it
  /// still reads it again).
  public var finalCheckAfterMs: Int64 = 400 * 86_400_000
  /// Housekeeping: how long finished inbox items, change-feed entries and events (once every
  /// webhook endpoint has them) are kept before they are deleted.
  public var inboxRetentionMs: Int64 = 30 * 86_400_000
  public var changeFeedRetentionMs: Int64 = 7 * 86_400_000
  public var eventRetentionMs: Int64 = 90 * 86_400_000
  /// Housekeeping: a `serve` replica that recorded its change-feed position within this long
  /// (replicas record every 10 s, `FeedPositionRecorder`) holds the feed: no entry it has not read
  /// is pruned. One not seen for longer (crashed, or cut off from the database) holds nothing,
  /// and reloads its index if its position was pruned meanwhile.
  public var feedReaderExpiryMs: Int64 = 600_000
  /// Housekeeping: a GDPR erase's change-feed entry (`WorkerStorage.eraseUser`) and every entry
  /// before it are deleted once the entry is this old, so that the user's id leaves the feed
  /// (`PrunePlan.erasureMarkersBeforeMs`); meanwhile every replica reads it and drops the user.
  public var erasureFeedDelayMs: Int64 = 600_000
  /// Re-verify this long after an expiry or grace boundary.
  public var recheckDelayMs: Int64 = 60_000
  /// Backoff after a failed store call: first delay and ceiling.
  public var backoffBaseMs: Int64 = 1_000
  public var backoffMaxMs: Int64 = 3_600_000
  /// How long a purchase the store does not know yet (`StoreFailure.Kind.notFound`) is retried,
  /// counted from when its submission or notification arrived; after that it is rejected.
  public var notFoundRetryWindowMs: Int64 = 3_600_000
  /// A period the store says began up to this long after the worker's now has begun: the store's
  /// clock may run ahead of ours.
  public var clockSkewToleranceMs: Int64 = 300_000
  /// While a store cannot be asked, an auto-renewing subscription whose renewal is not confirmed
  /// keeps access up to this long after its expiry (instead of the catalog's renewal leeway).
  public var storeOutageLeewayMs: Int64 = 7 * 86_400_000
  /// Store calls in flight at once, per store.
  public var storeConcurrency: Int = 4
  /// Calls a minute to each store, for the whole deployment: every worker on the database takes
  /// its calls from one shared budget per store (`StoreCallBudget`). Keyed by the config's store
  /// section names (`appStore`, `googlePlay`, `amazon`); a store not named is not budgeted.
  public var storeRequestsPerMinute: [String: Int] = [:]
  /// Bind a purchase nobody submitted yet to the user named by its `appAccountToken`, for apps
  /// that set that token to the user's id (a UUID) when they start a purchase.
  public var bindAppAccountToken: Bool = false
  /// Whether this worker runs alone on its database (the default): it takes the database's
  /// worker lease, a second worker refuses to start, and every write is fenced by the lease.
  /// False lets several workers share one database (every one of them set so): none takes the
  /// worker lease; claims, conditional writes and the singleton jobs' leases keep them apart.
  public var exclusive: Bool = true
  /// Follow a store simulator's virtual clock (`GET {url}/sim/clock`). For demos and tests only.
  public var followClockURL: String?

  public init() {}

  enum CodingKeys: String, CodingKey {
    case listen, adminListen, idleTimeoutMs, headerTimeoutMs, maxNotificationBytes, database, pollMs, leaseMs,
      requestTimeoutMs, minBodyBytesPerSecond, bodyRateGraceMs, maxConnections, adminMaxConnections,
      sweepIntervalMs, dormantAfterMs, dormantSweepIntervalMs, finalCheckAfterMs, recheckDelayMs,
      inboxRetentionMs, changeFeedRetentionMs, eventRetentionMs, feedReaderExpiryMs, erasureFeedDelayMs,
      backoffBaseMs, backoffMaxMs,
      notFoundRetryWindowMs, clockSkewToleranceMs, storeOutageLeewayMs, storeConcurrency, followClockURL,
      bindAppAccountToken, exclusive, storeRequestsPerMinute
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = WorkerSettings()
    listen = try c.decodeIfPresent(String.self, forKey: .listen) ?? d.listen
    adminListen = try c.decodeIfPresent(String.self, forKey: .adminListen) ?? d.adminListen
    idleTimeoutMs = try c.decodeIfPresent(Int64.self, forKey: .idleTimeoutMs) ?? d.idleTimeoutMs
    headerTimeoutMs = try c.decodeIfPresent(Int64.self, forKey: .headerTimeoutMs) ?? d.headerTimeoutMs
    maxNotificationBytes = try c.decodeIfPresent(Int.self, forKey: .maxNotificationBytes) ?? d.maxNotificationBytes
    requestTimeoutMs = try c.decodeIfPresent(Int64.self, forKey: .requestTimeoutMs) ?? d.requestTimeoutMs
    minBodyBytesPerSecond =
      try c.decodeIfPresent(Int.self, forKey: .minBodyBytesPerSecond) ?? d.minBodyBytesPerSecond
    bodyRateGraceMs = try c.decodeIfPresent(Int64.self, forKey: .bodyRateGraceMs) ?? d.bodyRateGraceMs
    maxConnections = try c.decodeIfPresent(Int.self, forKey: .maxConnections) ?? d.maxConnections
    adminMaxConnections = try c.decodeIfPresent(Int.self, forKey: .adminMaxConnections) ?? d.adminMaxConnections
    database = try c.decodeIfPresent(String.self, forKey: .database)
    pollMs = try c.decodeIfPresent(Int64.self, forKey: .pollMs) ?? d.pollMs
    leaseMs = try c.decodeIfPresent(Int64.self, forKey: .leaseMs) ?? d.leaseMs
    sweepIntervalMs = try c.decodeIfPresent(Int64.self, forKey: .sweepIntervalMs) ?? d.sweepIntervalMs
    dormantAfterMs = try c.decodeIfPresent(Int64.self, forKey: .dormantAfterMs) ?? d.dormantAfterMs
    dormantSweepIntervalMs =
      try c.decodeIfPresent(Int64.self, forKey: .dormantSweepIntervalMs) ?? d.dormantSweepIntervalMs
    finalCheckAfterMs = try c.decodeIfPresent(Int64.self, forKey: .finalCheckAfterMs) ?? d.finalCheckAfterMs
    recheckDelayMs = try c.decodeIfPresent(Int64.self, forKey: .recheckDelayMs) ?? d.recheckDelayMs
    inboxRetentionMs = try c.decodeIfPresent(Int64.self, forKey: .inboxRetentionMs) ?? d.inboxRetentionMs
    changeFeedRetentionMs =
      try c.decodeIfPresent(Int64.self, forKey: .changeFeedRetentionMs) ?? d.changeFeedRetentionMs
    eventRetentionMs = try c.decodeIfPresent(Int64.self, forKey: .eventRetentionMs) ?? d.eventRetentionMs
    feedReaderExpiryMs = try c.decodeIfPresent(Int64.self, forKey: .feedReaderExpiryMs) ?? d.feedReaderExpiryMs
    erasureFeedDelayMs = try c.decodeIfPresent(Int64.self, forKey: .erasureFeedDelayMs) ?? d.erasureFeedDelayMs
    backoffBaseMs = try c.decodeIfPresent(Int64.self, forKey: .backoffBaseMs) ?? d.backoffBaseMs
    backoffMaxMs = try c.decodeIfPresent(Int64.self, forKey: .backoffMaxMs) ?? d.backoffMaxMs
    notFoundRetryWindowMs =
      try c.decodeIfPresent(Int64.self, forKey: .notFoundRetryWindowMs) ?? d.notFoundRetryWindowMs
    clockSkewToleranceMs =
      try c.decodeIfPresent(Int64.self, forKey: .clockSkewToleranceMs) ?? d.clockSkewToleranceMs
    storeOutageLeewayMs = try c.decodeIfPresent(Int64.self, forKey: .storeOutageLeewayMs) ?? d.storeOutageLeewayMs
    storeConcurrency = try c.decodeIfPresent(Int.self, forKey: .storeConcurrency) ?? d.storeConcurrency
    followClockURL = try c.decodeIfPresent(String.self, forKey: .followClockURL)
    bindAppAccountToken = try c.decodeIfPresent(Bool.self, forKey: .bindAppAccountToken) ?? d.bindAppAccountToken
    exclusive = try c.decodeIfPresent(Bool.self, forKey: .exclusive) ?? d.exclusive
    storeRequestsPerMinute =
      try c.decodeIfPresent([String: Int].self, forKey: .storeRequestsPerMinute) ?? d.storeRequestsPerMinute
  }

  /// The budgeted calls a minute of each store (`storeRequestsPerMinute`, by section name).
  public var requestsPerMinute: [Store: Int] {
    var budgets: [Store: Int] = [:]
    for (name, limit) in storeRequestsPerMinute {
      if let store = Self.storeSections[name] { budgets[store] = limit }
    }
    return budgets
  }

  static let storeSections: [String: Store] = ["appStore": .appStore, "googlePlay": .googlePlay, "amazon": .amazon]

  /// Every problem with these settings, each starting with its key (`worker.listen: …`).
  func problems() -> [String] {
    var problems = [("listen", listen), ("adminListen", adminListen)].compactMap { key, value in
      ListenAddress.problem(value, key: "worker.\(key)")
    }
    if let notifications = ListenAddress(listen), let admin = ListenAddress(adminListen), notifications == admin,
      admin.port != 0
    {
      problems.append("worker.adminListen: must differ from worker.listen (\(listen))")
    }
    for (key, value) in [
      ("idleTimeoutMs", idleTimeoutMs), ("headerTimeoutMs", headerTimeoutMs), ("requestTimeoutMs", requestTimeoutMs),
    ]
    where !Self.timeoutRange.contains(value) {
      problems.append(
        "worker.\(key): must be between \(Self.timeoutRange.lowerBound) and \(Self.timeoutRange.upperBound)")
    }
    problems += listenerLimitProblems()
    if !Self.notificationBytesRange.contains(maxNotificationBytes) {
      problems.append(
        "worker.maxNotificationBytes: must be between \(Self.notificationBytesRange.lowerBound) and "
          + "\(Self.notificationBytesRange.upperBound)")
    }
    problems += otherProblems().map { "worker.\($0)" }
    return problems
  }

  /// The range `idleTimeoutMs` and `headerTimeoutMs` must lie in (100 ms to a day).
  public static let timeoutRange: ClosedRange<Int64> = 100...86_400_000
  /// The range `maxNotificationBytes` must lie in (1 KiB to 64 MiB).
  public static let notificationBytesRange = 1_024...(64 << 20)

  /// The range `maxConnections` and `adminMaxConnections` must lie in.
  public static let connectionsRange = 1...65_536

  private func listenerLimitProblems() -> [String] {
    var problems: [String] = []
    if requestTimeoutMs < headerTimeoutMs {
      problems.append("worker.requestTimeoutMs: must be at least headerTimeoutMs (\(headerTimeoutMs))")
    }
    if !(0...(64 << 20)).contains(minBodyBytesPerSecond) {
      problems.append("worker.minBodyBytesPerSecond: must be between 0 (off) and \(64 << 20)")
    }
    if !(0...Self.timeoutRange.upperBound).contains(bodyRateGraceMs) {
      problems.append("worker.bodyRateGraceMs: must be between 0 and \(Self.timeoutRange.upperBound)")
    }
    for (key, value) in [("maxConnections", maxConnections), ("adminMaxConnections", adminMaxConnections)]
    where !Self.connectionsRange.contains(value) {
      problems.append(
        "worker.\(key): must be between \(Self.connectionsRange.lowerBound) and \(Self.connectionsRange.upperBound)")
    }
    return problems
  }

  private func otherProblems() -> [String] {
    var problems: [String] = []
    if pollMs < 1 { problems.append("pollMs must be at least 1") }
    if leaseMs < 1_000 { problems.append("leaseMs must be at least 1000") }
    if sweepIntervalMs < 60_000 { problems.append("sweepIntervalMs must be at least 60000") }
    if dormantAfterMs < 0 { problems.append("dormantAfterMs must not be negative") }
    for (name, value) in [
      ("inboxRetentionMs", inboxRetentionMs), ("changeFeedRetentionMs", changeFeedRetentionMs),
      ("eventRetentionMs", eventRetentionMs),
    ] where value < 3_600_000 {
      problems.append("\(name) must be at least 3600000 (an hour)")
    }
    if feedReaderExpiryMs < 30_000 {
      problems.append("feedReaderExpiryMs must be at least 30000 (three of a replica's 10 s position records)")
    }
    if erasureFeedDelayMs < 0 { problems.append("erasureFeedDelayMs must not be negative") }
    if finalCheckAfterMs < dormantAfterMs {
      problems.append("finalCheckAfterMs must be at least dormantAfterMs")
    }
    if dormantSweepIntervalMs < sweepIntervalMs {
      problems.append("dormantSweepIntervalMs must be at least sweepIntervalMs")
    }
    if backoffBaseMs < 1 || backoffMaxMs < backoffBaseMs {
      problems.append("backoffBaseMs must be ≥ 1 and ≤ backoffMaxMs")
    }
    if clockSkewToleranceMs < 0 { problems.append("clockSkewToleranceMs must not be negative") }
    if storeOutageLeewayMs < 0 { problems.append("storeOutageLeewayMs must not be negative") }
    if notFoundRetryWindowMs < 0 { problems.append("notFoundRetryWindowMs must not be negative") }
    if storeConcurrency < 1 { problems.append("storeConcurrency must be at least 1") }
    for (name, limit) in storeRequestsPerMinute.sorted(by: { $0.key < $1.key }) {
      if Self.storeSections[name] == nil {
        problems.append("storeRequestsPerMinute.\(name.prefix(40)): not a store (appStore, googlePlay, amazon)")
      } else if limit < 1 {
        problems.append("storeRequestsPerMinute.\(name): must be at least 1")
      }
    }
    return problems
  }
}

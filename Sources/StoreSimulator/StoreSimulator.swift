import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization
import TollgateCrypto

/// The stores' server APIs on a virtual clock, over HTTP on loopback: the App Store (App Store
/// Server API, verifyReceipt, Server Notifications V2), signed with a generated root →
/// intermediate → leaf chain shaped like Apple's; and Google Play (Android Publisher API, OAuth
/// token endpoint, JWKS, RTDN over Pub/Sub push) with a generated service account and keys
/// (`StoreSimulator+Google.swift`); and the Amazon Appstore (RVS and the RVS Cloud Sandbox,
/// Real-Time Notifications as signed Amazon SNS deliveries: `StoreSimulator+Amazon.swift`).
///
/// The Swift methods and the HTTP control API (`/sim/…`, docs/storesim.md) call the same core.
/// Time only moves when told (`advance(byMs:)`, `POST /sim/clock/advance`): every virtual event
/// due on the way (renewals, billing retries, grace and retry-window ends) runs in time order,
/// and the notifications it produces are posted before the call returns (first attempt; retries
/// continue in real time).
public final class StoreSimulator: Sendable {
  struct State: Sendable {
    var core: SimCore
    var apple: AppleStore
    var google: GoogleStore
    var amazon: AmazonStore
  }

  public let config: Config
  let state: Mutex<State>
  let faults = FaultInjector()
  let answers = AnswerCache()
  /// Every store request received (`storeRequests`, `GET /sim/requests`).
  let requests = RequestLog()
  let dispatcher: NotificationDispatcher
  let logger: Logger
  private let appleSigner: AppleSigner
  let googleCredentials: GoogleCredentials
  let amazonSigner: AmazonSNSSigner
  let googleAccessTokens = GoogleAccessTokens()
  let virtualNow: VirtualNowMirror
  let googleKeyFilePath = Mutex<String?>(nil)
  private let httpClient: HTTPClient
  private let boundPort = Atomic<Int>(0)
  private let server = Mutex<BackgroundServer?>(nil)

  private init(
    config: Config, signer: AppleSigner, google: GoogleCredentials, amazon: AmazonSNSSigner, startMs: Int64,
    logger: Logger
  ) {
    self.config = config
    self.appleSigner = signer
    self.googleCredentials = google
    self.amazonSigner = amazon
    self.logger = logger
    let virtualNow = VirtualNowMirror(startMs)
    self.virtualNow = virtualNow
    self.state = Mutex(
      State(
        core: SimCore(nowMs: startMs), apple: AppleStore(config: config.apple, signer: signer),
        google: GoogleStore(config: config.google, credentials: google, virtualNow: virtualNow),
        amazon: AmazonStore(config: config.amazon, signer: amazon)))
    self.httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
    self.dispatcher = NotificationDispatcher(
      httpClient: httpClient, faults: faults, retryDelaysMs: config.notificationRetryDelaysMs,
      timeoutMs: config.notificationTimeoutMs, logger: logger)
  }

  /// Creates (or reloads from `config.dataDirectory`) the signing chain, writes
  /// `apple-root.cer` there, and starts listening. Returns once the port is bound.
  public static func start(config: Config = .defaults, logger: Logger) async throws -> StoreSimulator {
    let startMs = config.startTimeMs ?? NotificationDispatcher.realNowMs()
    let signer = try AppleSigner.load(orCreateIn: config.dataDirectory, nowSeconds: startMs / 1000)
    for app in config.apple.apps where app.apiKey == nil {
      logger.warning(
        "no App Store Server API key configured: any well-formed ES256 token for this bundle id is accepted",
        metadata: ["apple.bundle_id": "\(app.bundleId)"])
    }
    let google = try GoogleCredentials.load(orCreateIn: config.dataDirectory, config: config.google)
    let amazon = try AmazonSNSSigner.load(orCreateIn: config.dataDirectory, nowMs: startMs)
    let simulator = StoreSimulator(
      config: config, signer: signer, google: google, amazon: amazon, startMs: startMs, logger: logger)
    let router = Router(context: SimRequestContext.self)
    simulator.addAppleRoutes(to: router)
    simulator.addGoogleRoutes(to: router)
    simulator.addAmazonRoutes(to: router)
    simulator.addControlRoutes(to: router)
    // Started and stopped by its callers (tests, the demo), not run inside their ServiceGroup.
    let server = await BackgroundServer.start(logger: logger) { onRunning in
      Application(
        router: router, configuration: .init(address: .hostname(config.host, port: config.port)),
        onServerRunning: onRunning, logger: logger)
    }
    guard let server else {
      try? await simulator.httpClient.shutdown()
      throw StoreSimulatorError(code: .startup, message: "cannot listen on \(config.host):\(config.port)")
    }
    let port = server.port
    simulator.boundPort.store(port, ordering: .relaxed)
    simulator.server.withLock { $0 = server }
    do {
      if let directory = config.dataDirectory {
        let path = try google.writeKeyFile(in: directory, tokenURI: simulator.googleTokenURI)
        simulator.googleKeyFilePath.withLock { $0 = path }
      }
      try await simulator.amazonSubscribeConfiguredApps()
    } catch {
      await simulator.stop()
      throw error
    }
    logger.info(
      "store simulator listening",
      metadata: ["sim.port": "\(port)", "sim.now_ms": "\(startMs)", "sim.data": "\(config.dataDirectory ?? "-")"])
    return simulator
  }

  /// Stops listening (gracefully: requests in flight are answered), cancels notification retries,
  /// closes the HTTP client. Once; later calls return at once.
  public func stop() async {
    faults.releaseStalls()
    let server = self.server.withLock { server in
      defer { server = nil }
      return server
    }
    guard let server else { return }  // stopped already
    await server.stop()
    await dispatcher.shutdown()
    try? await httpClient.shutdown()
  }

  public var port: Int { boundPort.load(ordering: .relaxed) }
  /// `http://HOST:PORT`: the App Store Server API production base URL; sandbox is
  /// `baseURL + "/sandbox"` (see `Config.Apple.separateEnvironments`).
  public var baseURL: String {
    let host = config.host.contains(":") ? "[\(config.host)]" : config.host
    return "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
  }
  /// The root to pin in `SignedDataVerifier` (also `DIR/apple-root.cer`).
  public var rootCertificate: Certificate { appleSigner.root }
  /// The virtual now, ms since the epoch (`GET /sim/clock`).
  public var clockNowMs: Int64 { state.withLock { $0.core.nowMs } }
  /// The now every process that follows this clock reads (`GET /sim/clock`'s `followedNowMs`,
  /// `FollowedClock`): the virtual now plus the real time since it last moved, as this simulator
  /// measures it, so followers started before and after an `advance` agree.
  public var followedNowMs: Int64 { virtualNow.reading.followedNowMs }
  /// Every notification and its delivery attempts (`GET /sim/notifications`).
  public var notifications: [NotificationRecord] { dispatcher.log }

  // MARK: The one path every change takes

  /// Runs `change` under the lock, then delivers the notifications it queued.
  func mutate<T: Sendable>(_ change: (inout State) throws(StoreSimulatorError) -> T) async throws(StoreSimulatorError)
    -> T
  {
    let (value, outbox) = try state.withLock { (state: inout State) throws(StoreSimulatorError) in
      let value = try change(&state)
      virtualNow.publish(state.core.nowMs)
      return (value, state.core.takeOutbox())
    }
    await dispatcher.deliver(outbox)
    return value
  }

  // MARK: Clock

  /// What `advance` did.
  public struct AdvanceResult: Sendable, Codable, Hashable {
    public var nowMs: Int64
    public var events: [FiredEvent]
    public var notificationsSent: Int
  }

  /// Moves the virtual clock forward, running every due event in time order.
  @discardableResult
  public func advance(byMs delta: Int64) async throws(StoreSimulatorError) -> AdvanceResult {
    guard delta >= 0 else { throw .invalid("the clock only moves forward") }
    let result = try await mutate { (state: inout State) throws(StoreSimulatorError) -> AdvanceResult in
      let target = state.core.nowMs + delta
      var fired: [FiredEvent] = []
      while let event = state.core.popDue(upTo: target) {
        state.core.nowMs = max(state.core.nowMs, event.atMs)
        let outcome: String
        switch event.store {
        case AppleStore.name: outcome = state.apple.fire(event, core: &state.core)
        case GoogleStore.name: outcome = state.google.fire(event, core: &state.core)
        case AmazonStore.name: outcome = state.amazon.fire(event, core: &state.core)
        default: outcome = "no such store"
        }
        if outcome != "stale" {
          fired.append(
            FiredEvent(atMs: event.atMs, store: event.store, kind: event.kind, subject: event.subject, outcome: outcome)
          )
        }
      }
      state.core.nowMs = target
      return AdvanceResult(nowMs: target, events: fired, notificationsSent: state.core.outbox.count)
    }
    logger.info(
      "virtual clock advanced", metadata: ["sim.now_ms": "\(result.nowMs)", "sim.events": "\(result.events.count)"])
    return result
  }

  // MARK: Apple scenarios

  public func purchase(_ request: ApplePurchaseRequest) async throws(StoreSimulatorError) -> ApplePurchaseResult {
    try await mutate { (state: inout State) throws(StoreSimulatorError) in
      try state.apple.purchase(request, core: &state.core)
    }
  }

  public func subscription(_ originalTransactionId: String) throws(StoreSimulatorError) -> AppleSubscriptionSnapshot {
    try state.withLock { (state: inout State) throws(StoreSimulatorError) in
      try state.apple.snapshot(originalTransactionId)
    }
  }

  @discardableResult
  public func failRenewals(_ originalTransactionId: String) async throws(StoreSimulatorError)
    -> AppleSubscriptionSnapshot
  {
    try await mutate { (state: inout State) throws(StoreSimulatorError) in
      try state.apple.failRenewals(originalTransactionId)
    }
  }

  @discardableResult
  public func recoverBilling(_ originalTransactionId: String, immediately: Bool = false)
    async throws(StoreSimulatorError)
    -> AppleSubscriptionSnapshot
  {
    try await mutate { (state: inout State) throws(StoreSimulatorError) in
      try state.apple.recoverBilling(originalTransactionId, immediately: immediately, core: &state.core)
    }
  }

  @discardableResult
  public func setAutoRenew(_ originalTransactionId: String, enabled: Bool) async throws(StoreSimulatorError)
    -> AppleSubscriptionSnapshot
  {
    try await mutate { (state: inout State) throws(StoreSimulatorError) in
      try state.apple.setAutoRenew(originalTransactionId, enabled: enabled, core: &state.core)
    }
  }

  /// - Parameter reason: Apple's `revocationReason`: 0 other, 1 an issue with the app.
  @discardableResult
  public func refund(_ originalTransactionId: String, transactionId: String? = nil, reason: Int = 0)
    async throws(StoreSimulatorError) -> AppleSubscriptionSnapshot
  {
    try await mutate { (state: inout State) throws(StoreSimulatorError) in
      try state.apple.refund(originalTransactionId, transactionId: transactionId, reason: reason, core: &state.core)
    }
  }

  /// Upgrade, downgrade or crossgrade, decided by the products' levels.
  @discardableResult
  public func changeProduct(_ originalTransactionId: String, to productId: String) async throws(StoreSimulatorError)
    -> AppleSubscriptionSnapshot
  {
    try await mutate { (state: inout State) throws(StoreSimulatorError) in
      try state.apple.changeProduct(originalTransactionId, to: productId, core: &state.core)
    }
  }

  public func familyShare(_ originalTransactionId: String, appAccountToken: String? = nil)
    async throws(StoreSimulatorError) -> ApplePurchaseResult
  {
    try await mutate { (state: inout State) throws(StoreSimulatorError) in
      try state.apple.familyShare(originalTransactionId, appAccountToken: appAccountToken, core: &state.core)
    }
  }

  /// What the buyer's device holds after `AppStore.sync()`: the latest transaction of
  /// `originalTransactionId` (any transaction id of it works) signed now, and a receipt made now.
  public func restore(_ originalTransactionId: String) throws(StoreSimulatorError) -> ApplePurchaseResult {
    try state.withLock { (state: inout State) throws(StoreSimulatorError) in
      try state.apple.restored(originalTransactionId, nowMs: state.core.nowMs)
    }
  }

  // MARK: Faults

  public func addFault(_ rule: FaultRule) throws(StoreSimulatorError) { try faults.add(rule) }
  public func clearFaults() { faults.clear() }
  public var activeFaults: [FaultRule] { faults.active }
  /// Every use of a fault rule, oldest first (the last 1 000; `GET /sim/faults/applied`).
  public var appliedFaults: [AppliedFault] { faults.applied }

  // MARK: Requests

  /// Every request to a store's own endpoints (the APIs, verifyReceipt, Google's token endpoint,
  /// Amazon's RVS), oldest first (the last 20 000; `GET /sim/requests`): how many times each
  /// purchase was read, and when.
  public var storeRequests: [StoreRequestRecord] { requests.all }
  /// Forgets the requests received so far (`DELETE /sim/requests`).
  public func clearStoreRequests() { requests.clear() }
}

import Synchronization

/// One way to make a store misbehave, for the next `count` requests (or until cleared).
public struct FaultRule: Sendable, Hashable, Codable {
  /// What happens to a request (or a notification). `FaultRule.modes(for:)` says which modes a
  /// target takes; docs/storesim.md has the table.
  public enum Mode: String, Sendable, Hashable, Codable, CaseIterable {
    /// `500 {"errorCode": 5000000}`; notifications: the first attempt fails, retries go on.
    case error500
    /// `429 {"errorCode": 4290000}` with `Retry-After: retryAfterSeconds`.
    case rateLimit
    /// The real answer (or notification) after `delayMs` of real time.
    case slow
    /// No answer at all until the client gives up, or `delayMs` (default 30 s, at most 300 s)
    /// of real time have passed; then the connection is closed without an answer.
    case stall
    /// The connection is closed (TCP reset) without an HTTP answer.
    case reset
    /// `200` with an HTML page, as a captive portal or a misconfigured proxy sends.
    case html200
    /// `200` with an empty body.
    case empty200
    /// The real answer with its body cut to half its length.
    case truncatedJSON
    /// The real answer with the signature of every JWS in it corrupted (API only).
    case badSignature
    /// `401 {"errorCode": 4010000}`, as Apple answers a token it refuses (API only).
    case unauthorized
    /// `404 {"errorCode": 4040010, "errorMessage": "Transaction id not found."}` (API only).
    case notFound
    /// The last `200` answer the simulator gave for the same path and query, replayed byte for
    /// byte as a caching proxy would (API only). A request with no earlier answer is answered
    /// for real and does not use up the rule.
    case stale
    /// Notifications only: never sent, sent twice, held back until the next one.
    case drop, duplicate, reorder
  }

  /// `apple.api`, `apple.verifyReceipt`, `apple.notifications`, `google.api`, `google.token`,
  /// `google.notifications`, `amazon.rvs` or `amazon.notifications`.
  public var target: String
  public var mode: Mode
  /// How many requests (or notifications) it applies to; `nil` until `DELETE /sim/faults`.
  public var count: Int?
  /// For `rateLimit`: the `Retry-After` header, in seconds.
  public var retryAfterSeconds: Int?
  /// For `slow`: real milliseconds to wait before answering (or delivering). For `stall`: the
  /// real-time cap after which the connection is closed (default 30 000, at most 300 000).
  public var delayMs: Int?
  /// `amazon.rvs` only: the status `error500` answers (500, 503 or 504; default 500) and
  /// `unauthorized` answers (496 invalid shared secret, the default, or 497 invalid user id).
  public var status: Int?
  /// The share of the target's requests the rule applies to, in (0, 1]; nil: every request.
  /// Deterministic: of the first n requests it meets, floor(n × fraction) are faulted (0.05: the
  /// 20th, the 40th, …); the others get the real answer. `count` counts faulted requests only.
  public var fraction: Double?

  public init(
    target: String, mode: Mode, count: Int? = 1, retryAfterSeconds: Int? = nil, delayMs: Int? = nil,
    status: Int? = nil, fraction: Double? = nil
  ) {
    self.target = target
    self.mode = mode
    self.count = count
    self.retryAfterSeconds = retryAfterSeconds
    self.delayMs = delayMs
    self.status = status
    self.fraction = fraction
  }

  public static let targets = [
    "apple.api", "apple.verifyReceipt", "apple.notifications", "google.api", "google.token", "google.notifications",
    "amazon.rvs", "amazon.notifications",
  ]

  /// The modes `target` takes: every answer fault for the API; the ones that need no signed
  /// payload or API error vocabulary for verifyReceipt; delivery faults for notifications.
  public static func modes(for target: String) -> [Mode] {
    let answers: [Mode] = [.error500, .rateLimit, .slow, .stall, .reset, .html200, .empty200, .truncatedJSON]
    if target == "google.api" { return answers + [.unauthorized, .notFound, .stale] }
    if target == "google.token" { return answers + [.unauthorized] }
    if target == "amazon.rvs" { return answers + [.unauthorized, .stale] }
    if target.hasSuffix(".api") { return answers + [.badSignature, .unauthorized, .notFound, .stale] }
    if target.hasSuffix(".verifyReceipt") { return answers }
    if target.hasSuffix(".notifications") { return [.error500, .rateLimit, .slow, .drop, .duplicate, .reorder] }
    return []
  }

  static let defaultStallMs = 30_000
  static let maximumStallMs = 300_000
}

/// One use of a fault rule: which request it changed, when (real time).
public struct AppliedFault: Sendable, Hashable, Codable {
  public var target: String
  public var mode: FaultRule.Mode
  /// The request's path and query, or the notification's type.
  public var request: String
  public var realTimeMs: Int64
}

/// The active fault rules. Each request takes the first rule for its target and uses up one count.
final class FaultInjector: Sendable {
  private struct State {
    var rules: [FaultRule] = []
    /// For each rule (same index): how many requests it met (for `fraction`).
    var met: [Int] = []
    var applied: [AppliedFault] = []
  }

  static let appliedLimit = 1_000
  private let state = Mutex(State())
  private let released = Atomic<Bool>(false)

  func add(_ rule: FaultRule) throws(StoreSimulatorError) {
    guard FaultRule.targets.contains(rule.target) else {
      throw .invalid(
        "unknown fault target \(rule.target); expected one of \(FaultRule.targets.joined(separator: ", "))")
    }
    let modes = FaultRule.modes(for: rule.target)
    guard modes.contains(rule.mode) else {
      throw .invalid(
        "fault mode \(rule.mode.rawValue) does not apply to \(rule.target); it takes "
          + modes.map(\.rawValue).joined(separator: ", "))
    }
    if let count = rule.count, count < 1 { throw .invalid("fault count must be at least 1") }
    if let delayMs = rule.delayMs, delayMs < 0 { throw .invalid("delayMs must not be negative") }
    if let status = rule.status {
      let allowed: [Int] =
        switch (rule.target, rule.mode) {
        case ("amazon.rvs", .error500): [500, 503, 504]
        case ("amazon.rvs", .unauthorized): [496, 497]
        default: []
        }
      guard allowed.contains(status) else {
        throw .invalid("status \(status) does not apply to \(rule.mode.rawValue) on \(rule.target)")
      }
    }
    if rule.mode == .stall, let delayMs = rule.delayMs, delayMs > FaultRule.maximumStallMs {
      throw .invalid("a stall is capped at \(FaultRule.maximumStallMs) ms")
    }
    if let fraction = rule.fraction, !(fraction > 0 && fraction <= 1) {
      throw .invalid("fraction must be greater than 0 and at most 1")
    }
    state.withLock {
      $0.rules.append(rule)
      $0.met.append(0)
    }
  }

  func clear() {
    state.withLock {
      $0.rules.removeAll()
      $0.met.removeAll()
    }
  }

  var active: [FaultRule] { state.withLock { $0.rules } }

  /// The most recent uses of a rule, oldest first (at most `appliedLimit`).
  var applied: [AppliedFault] { state.withLock { $0.applied } }

  /// The fault to apply to one request to `target`, if any: the first rule for the target, when
  /// `applies` accepts it; its count is used up and the use recorded.
  func take(_ target: String, request: String, where applies: (FaultRule) -> Bool = { _ in true }) -> FaultRule? {
    state.withLock { state in
      guard let index = state.rules.firstIndex(where: { $0.target == target }), applies(state.rules[index]) else {
        return nil
      }
      let rule = state.rules[index]
      if let fraction = rule.fraction {
        let met = state.met[index]
        state.met[index] = met + 1
        guard Int(Double(met + 1) * fraction) > Int(Double(met) * fraction) else { return nil }
      }
      if let count = rule.count {
        if count <= 1 {
          state.rules.remove(at: index)
          state.met.remove(at: index)
        } else {
          state.rules[index].count = count - 1
        }
      }
      if state.applied.count >= Self.appliedLimit { state.applied.removeFirst(state.applied.count / 2) }
      state.applied.append(
        AppliedFault(
          target: target, mode: rule.mode, request: request, realTimeMs: NotificationDispatcher.realNowMs()))
      return rule
    }
  }

  /// Ends every stall at once (the simulator is stopping).
  func releaseStalls() { released.store(true, ordering: .relaxed) }

  var stallsReleased: Bool { released.load(ordering: .relaxed) }
}

import Synchronization

/// One way to make a store misbehave, for the next `count` requests (or until cleared).
public struct FaultRule: Sendable, Hashable, Codable {
  /// `error500`, `rateLimit`, `slow` (API, verifyReceipt and notifications); `drop`,
  /// `duplicate`, `reorder` (notifications only).
  public enum Mode: String, Sendable, Hashable, Codable, CaseIterable {
    case error500, rateLimit, slow, drop, duplicate, reorder
  }

  /// `apple.api`, `apple.verifyReceipt` or `apple.notifications`.
  public var target: String
  public var mode: Mode
  /// How many requests (or notifications) it applies to; `nil` until `DELETE /sim/faults`.
  public var count: Int?
  /// For `rateLimit`: the `Retry-After` header, in seconds.
  public var retryAfterSeconds: Int?
  /// For `slow`: real milliseconds to wait before answering (or delivering).
  public var delayMs: Int?

  public init(target: String, mode: Mode, count: Int? = 1, retryAfterSeconds: Int? = nil, delayMs: Int? = nil) {
    self.target = target
    self.mode = mode
    self.count = count
    self.retryAfterSeconds = retryAfterSeconds
    self.delayMs = delayMs
  }

  public static let targets = ["apple.api", "apple.verifyReceipt", "apple.notifications"]
}

/// The active fault rules. Each request takes the first rule for its target and uses up one count.
final class FaultInjector: Sendable {
  private let rules = Mutex<[FaultRule]>([])

  func add(_ rule: FaultRule) throws(StoreSimulatorError) {
    guard FaultRule.targets.contains(rule.target) else {
      throw .invalid(
        "unknown fault target \(rule.target); expected one of \(FaultRule.targets.joined(separator: ", "))")
    }
    let notificationOnly: Set<FaultRule.Mode> = [.drop, .duplicate, .reorder]
    if rule.target != "apple.notifications", notificationOnly.contains(rule.mode) {
      throw .invalid("fault mode \(rule.mode.rawValue) applies to notifications only")
    }
    if let count = rule.count, count < 1 { throw .invalid("fault count must be at least 1") }
    rules.withLock { $0.append(rule) }
  }

  func clear() { rules.withLock { $0.removeAll() } }

  var active: [FaultRule] { rules.withLock { $0 } }

  /// The fault to apply to one request to `target`, if any (its count is used up).
  func take(_ target: String) -> FaultRule? {
    rules.withLock { rules in
      guard let index = rules.firstIndex(where: { $0.target == target }) else { return nil }
      let rule = rules[index]
      if let count = rule.count {
        if count <= 1 { rules.remove(at: index) } else { rules[index].count = count - 1 }
      }
      return rule
    }
  }
}

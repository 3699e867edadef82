/// The answer to "is this user entitled to this, now?" for one record, evaluated at query time so
/// that an expiry passes without anyone writing.
public struct EvaluatedEntitlement: Sendable, Hashable {
  public var record: EntitlementRecord
  public var active: Bool
  /// The state at evaluation time: an entitled state whose access has ended reads as `expired`.
  public var state: SubscriptionState

  public init(record: EntitlementRecord, at nowMs: Int64) {
    self.record = record
    let inTime = nowMs < record.accessEndsAtMs
    self.active = record.state.isEntitledByDefault && inTime
    if record.state.isEntitledByDefault && !inTime {
      self.state = .expired
    } else {
      self.state = record.state
    }
  }
}

extension EntitlementRecord {
  public func evaluated(at nowMs: Int64) -> EvaluatedEntitlement {
    EvaluatedEntitlement(record: self, at: nowMs)
  }
}

extension Sequence where Element == EntitlementRecord {
  /// Picks the record that best answers for one entitlement: an active one over an inactive one,
  /// then the one whose access lasts longest, then the most recently verified.
  public func bestEvaluation(at nowMs: Int64) -> EvaluatedEntitlement? {
    var best: EvaluatedEntitlement?
    for record in self {
      let candidate = record.evaluated(at: nowMs)
      guard let current = best else {
        best = candidate
        continue
      }
      if candidate.isPreferred(over: current) { best = candidate }
    }
    return best
  }
}

extension EvaluatedEntitlement {
  func isPreferred(over other: EvaluatedEntitlement) -> Bool {
    if active != other.active { return active }
    if record.accessEndsAtMs != other.record.accessEndsAtMs {
      return record.accessEndsAtMs > other.record.accessEndsAtMs
    }
    if record.verifiedAtMs != other.record.verifiedAtMs {
      return record.verifiedAtMs > other.record.verifiedAtMs
    }
    return record.source < other.record.source
  }
}

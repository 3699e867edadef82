/// The answer to "is this user entitled to this, now?" for one record, evaluated at query time so
/// that an expiry passes without anyone writing.
public struct EvaluatedEntitlement: Sendable, Hashable {
  public var record: EntitlementRecord
  public var active: Bool
  /// The state at evaluation time: an entitled state whose access has ended reads as `expired`.
  public var state: SubscriptionState

  public init(record: EntitlementRecord, at nowMs: Int64) {
    self.record = record
    (active, state) = record.state.atQueryTime(accessEndsAtMs: record.accessEndsAtMs, nowMs: nowMs)
  }

  /// What ranks this evaluation among others for the same entitlement.
  public var rank: EntitlementRank {
    EntitlementRank(active: active, accessEndsAtMs: record.accessEndsAtMs, verifiedAtMs: record.verifiedAtMs)
  }
}

extension SubscriptionState {
  /// How a record in this state reads at `nowMs`: whether it gives access, and its state (an
  /// entitled state whose access has ended reads as `expired`). The one rule for query time.
  public func atQueryTime(accessEndsAtMs: Int64, nowMs: Int64) -> (active: Bool, state: SubscriptionState) {
    guard isEntitledByDefault else { return (false, self) }
    return nowMs < accessEndsAtMs ? (true, self) : (false, .expired)
  }
}

/// Which of two records that grant the same entitlement answers for it: an active one over an
/// inactive one, then the one whose access lasts longest, then the most recently verified.
public struct EntitlementRank: Sendable, Hashable {
  public var active: Bool
  public var accessEndsAtMs: Int64
  public var verifiedAtMs: Int64

  public init(active: Bool, accessEndsAtMs: Int64, verifiedAtMs: Int64) {
    self.active = active
    self.accessEndsAtMs = accessEndsAtMs
    self.verifiedAtMs = verifiedAtMs
  }

  /// True or false when the ranks differ; nil on a tie, which the sources' order breaks.
  public func isPreferred(over other: EntitlementRank) -> Bool? {
    if active != other.active { return active }
    if accessEndsAtMs != other.accessEndsAtMs { return accessEndsAtMs > other.accessEndsAtMs }
    if verifiedAtMs != other.verifiedAtMs { return verifiedAtMs > other.verifiedAtMs }
    return nil
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
    rank.isPreferred(over: other.rank) ?? (record.source < other.record.source)
  }
}

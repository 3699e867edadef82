/// `tollgate explain`'s answer, as data (printed as text or JSON).
public struct Explanation: Sendable, Codable {
  public struct Payload: Sendable, Codable {
    public var kind: String
    public var id: String
    public var sha256: String
    public var signedAtMs: Int64?
  }

  public struct Source: Sendable, Codable {
    public var source: String
    public var store: String
    public var productId: String
    public var active: Bool
    public var state: String
    public var accessEndsAtMs: Int64
    public var expiresAtMs: Int64
    public var willRenew: Bool
    public var environment: String
    public var verifiedAtMs: Int64
    /// The lifecycle rule that decided the state (`current_period`, `billing_grace_period`, …).
    public var rule: String
    public var evidenceSource: String?
    public var payloads: [Payload]
    public var grantNote: String?
    /// The purchases this one replaced, newest first (Google's linkedPurchaseToken chain: an
    /// upgrade, downgrade or re-signup is a new token linked to the one before).
    public var replaces: [String]
    /// Whether this source is the one that answers IsSubscriber.
    public var decides: Bool
    /// Why and since when the worker no longer reads this chain on its schedule (the store no
    /// longer has the purchase); nil while it does.
    public var checksStopped: VerificationEvidence.ChecksStopped? = nil
  }

  public struct Event: Sendable, Codable {
    public var kind: String
    public var purchaseId: String
    public var state: String?
    public var atMs: Int64
    public var detail: String?
  }

  /// A purchase the user held that is now bound to another user (moved under the transfer policy).
  public struct TransferredAway: Sendable, Codable {
    public var store: String
    public var purchaseId: String
    public var productId: String
    public var toUserId: String
    /// When it moved, and the policy that moved it (the new owner's `transferred` event), while kept.
    public var atMs: Int64?
    public var detail: String?
  }

  public var userId: String
  public var entitlement: String
  public var evaluatedAtMs: Int64
  public var active: Bool
  public var state: String?
  public var sources: [Source]
  public var recentEvents: [Event]
  /// Purchases this user held that now belong to someone else.
  public var transferredAway: [TransferredAway] = []
  /// This user's rejected submissions, newest first: a claim refused (the purchase is bound to
  /// another user, or names another buyer), or the store's final no.
  public var rejectedSubmissions: [RejectedSubmission] = []

  public var text: String {
    var lines = [
      "\(userId) is \(active ? "" : "NOT ")entitled to \(entitlement)\(state.map { " (\($0))" } ?? "") at \(evaluatedAtMs)"
    ]
    if sources.isEmpty { lines.append("  no subscription or grant gives \(entitlement)") }
    for source in sources {
      lines.append(
        "\(source.decides ? "→" : " ") \(source.source): \(source.productId), \(source.state), access until \(source.accessEndsAtMs), "
          + "will renew \(source.willRenew), \(source.environment), rule \(source.rule), verified at \(source.verifiedAtMs)"
          + (source.evidenceSource.map { " via \($0)" } ?? ""))
      for payload in source.payloads {
        lines.append(
          "      \(payload.kind) \(payload.id) sha256 \(payload.sha256.prefix(16))… signed \(payload.signedAtMs.map(String.init) ?? "-")"
        )
      }
      if let note = source.grantNote { lines.append("      note: \(note)") }
      if !source.replaces.isEmpty { lines.append("      replaces: \(source.replaces.joined(separator: " ← "))") }
      if let stopped = source.checksStopped {
        lines.append("      checks stopped: \(stopped.reason) at \(stopped.atMs)")
      }
    }
    for moved in transferredAway {
      lines.append(
        "  transferred away: \(moved.store) purchase \(moved.purchaseId) (\(moved.productId)) now belongs to "
          + "\(moved.toUserId)\(moved.atMs.map { " since \($0)" } ?? "")\(moved.detail.map { " (\($0))" } ?? "")")
    }
    for rejected in rejectedSubmissions {
      lines.append(
        "  submission rejected at \(rejected.rejectedAtMs ?? rejected.receivedAtMs): \(rejected.store)"
          + "\(rejected.productId.map { " \($0)" } ?? ""): \(rejected.reason)")
    }
    if !recentEvents.isEmpty {
      lines.append("recent events:")
      for event in recentEvents {
        lines.append("  \(event.atMs) \(event.kind) \(event.purchaseId)\(event.detail.map { " (\($0))" } ?? "")")
      }
    }
    return lines.joined(separator: "\n")
  }
}

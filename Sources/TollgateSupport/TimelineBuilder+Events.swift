import TollgateCore
import TollgateWorker

extension TimelineBuilder {
  /// The entries events give: billing trouble, grace, recovery, holds, pauses, expiry, opting out
  /// and in, transfers in and out, refused claims, and the operator's grants and revocations (with
  /// who did it and the note). Purchases, renewals, refunds and plan changes come from the chain's
  /// verified history instead, which the store signed. `chainEvents` (every event of the chains
  /// the user's events name, whoever they were written for) adds only the transfers away: another
  /// user's `transferred` event of a chain this user held.
  static func eventEntries(userId: String, events: [WorkerEvent], chainEvents: [WorkerEvent]) -> [Timeline.Entry] {
    var seen = Set<WorkerEvent>()
    var entries: [Timeline.Entry] = []
    for event in events where seen.insert(event).inserted {
      if let entry = entry(event, userId: userId) { entries.append(entry) }
    }
    for event in chainEvents where event.userId != userId && event.kind == "transferred" {
      if seen.insert(event).inserted, let entry = entry(event, userId: userId) { entries.append(entry) }
    }
    return entries
  }

  /// The timeline's kind for an event's, nil for the kinds the history shows.
  static func kind(of event: WorkerEvent, userId: String) -> Timeline.Kind? {
    switch event.kind {
    case "billing_issue": event.state == .onHold ? .onHold : .billingIssue
    case "grace_started": .graceStarted
    case "recovered": .recovered
    case "paused": .paused
    case "expired": .expired
    case "opted_out": .optedOut
    case "opted_in": .optedIn
    case "transferred": event.userId == userId ? .transferredIn : .transferredOut
    case "transfer_refused": .transferRefused
    case "claim_refused": .claimRefused
    case "granted": .granted
    case "grant_revoked": .grantRevoked
    default: nil
    }
  }

  private static func entry(_ event: WorkerEvent, userId: String) -> Timeline.Entry? {
    guard let kind = kind(of: event, userId: userId) else { return nil }
    var entry = Timeline.Entry(
      atMs: event.atMs, kind: kind, store: event.store, purchaseId: event.purchaseId, productId: event.productId,
      transactionId: event.details.transactionId, state: event.state, detail: event.detail ?? event.details.reason,
      source: .event)
    if let grant = event.details.grant {
      entry.productId = grant.entitlement
      if kind == .granted { entry.untilMs = grant.expiresAtMs }
      entry.detail = [grant.actor.map { "by \($0)" }, grant.note].compactMap { $0 }.joined(separator: ": ")
    }
    if kind == .transferredOut {
      entry.detail = "to \(event.userId ?? "nobody")" + (event.detail.map { " (\($0))" } ?? "")
      entry.state = nil
    }
    if entry.detail?.isEmpty == true { entry.detail = nil }
    return entry
  }

  /// Each grant as a span from when it was granted until it ends (or was withdrawn), with its
  /// entitlement, note and state now.
  static func grantEntries(_ grants: [PromotionalGrant], nowMs: Int64) -> [Timeline.Entry] {
    grants.map { grant in
      let record = grant.entitlementRecord(verifiedAtMs: nowMs)
      var detail = grant.note
      if let revokedAtMs = grant.revokedAtMs, revokedAtMs < grant.expiresAtMs {
        detail = "withdrawn at \(ISO8601Text.text(ms: revokedAtMs))" + (grant.note.map { ": \($0)" } ?? "")
      }
      return Timeline.Entry(
        atMs: grant.grantedAtMs, untilMs: record.accessEndsAtMs, kind: .grant, store: .promotional,
        purchaseId: grant.grantId, productId: grant.entitlement, state: record.evaluated(at: nowMs).state,
        detail: detail, source: .grant)
    }
  }
}

extension TimelineBuilder {
  /// Gives each plan change of the history (`product_changed` within a chain, `replaced_by`
  /// across purchases) the direction the worker's `product_changed` event ranked it: the event
  /// whose replaced purchase is the chain (`replaced_by`), or of the same chain into the same
  /// product, nearest in time (`product_changed`).
  static func annotateProductChanges(_ entries: inout [Timeline.Entry], events: [WorkerEvent]) {
    let changes = events.filter { $0.kind == "product_changed" && $0.details.productChange?.direction != nil }
    guard !changes.isEmpty else { return }
    for index in entries.indices {
      let entry = entries[index]
      switch entry.kind {
      case .replacedBy:
        let event = changes.first { $0.details.productChange?.fromPurchaseId == entry.purchaseId }
        entries[index].productChange = event?.details.productChange?.direction
      case .productChanged:
        let event =
          changes.filter {
            $0.store == entry.store && $0.purchaseId == entry.purchaseId
              && $0.details.productChange?.toProductId == entry.productId
          }
          .min { abs($0.atMs - entry.atMs) < abs($1.atMs - entry.atMs) }
        entries[index].productChange = event?.details.productChange?.direction
      default: break
      }
    }
  }
}

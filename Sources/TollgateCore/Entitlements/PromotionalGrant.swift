/// A time-boxed entitlement an operator granted by hand (web billing, support). It takes part in
/// evaluation on equal terms with store purchases.
public struct PromotionalGrant: Sendable, Hashable, Codable {
  public var grantId: String
  public var userId: String
  public var entitlement: String
  public var grantedAtMs: Int64
  /// When the grant ends.
  public var expiresAtMs: Int64
  /// When an operator withdrew the grant early, if they did.
  public var revokedAtMs: Int64?
  /// Free text for the audit trail (who, why).
  public var note: String?

  public init(
    grantId: String, userId: String, entitlement: String, grantedAtMs: Int64, expiresAtMs: Int64,
    revokedAtMs: Int64? = nil, note: String? = nil
  ) {
    self.grantId = grantId
    self.userId = userId
    self.entitlement = entitlement
    self.grantedAtMs = grantedAtMs
    self.expiresAtMs = expiresAtMs
    self.revokedAtMs = revokedAtMs
    self.note = note
  }

  /// `EntitlementRecord.source`: `promotional:<grantId>`.
  public var source: String { "\(Store.promotional.rawValue):\(grantId)" }

  /// The record for this grant. A withdrawn grant is `revoked` with access ending when it was
  /// withdrawn; otherwise it is `active` until `expiresAtMs` (evaluation reads it as expired
  /// afterwards).
  public func entitlementRecord(verifiedAtMs: Int64) -> EntitlementRecord {
    let revoked = revokedAtMs.map { $0 < expiresAtMs } ?? false
    let accessEnds = revoked ? max(grantedAtMs, revokedAtMs ?? expiresAtMs) : expiresAtMs
    return EntitlementRecord(
      userId: userId, entitlement: entitlement, source: source, store: .promotional,
      productId: "promotional", environment: .production, state: revoked ? .revoked : .active,
      willRenew: false, expiresAtMs: expiresAtMs, accessEndsAtMs: min(accessEnds, expiresAtMs),
      verifiedAtMs: verifiedAtMs)
  }
}

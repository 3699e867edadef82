/// The unified state of one subscription, the same for every store.
///
/// `docs/lifecycle.md` says which store signals lead to which state.
public enum SubscriptionState: String, Sendable, Hashable, Codable, CaseIterable {
  /// In a free trial.
  case trial
  /// In a paid introductory offer (pay as you go / pay up front).
  case introOffer = "intro_offer"
  /// Paid and current.
  case active
  /// Renewal failed; the store keeps retrying and the user keeps access until the grace period ends.
  case gracePeriod = "grace_period"
  /// Renewal failed; the store keeps retrying, the user has no access.
  case billingRetry = "billing_retry"
  /// Google Play account hold: payment failed after grace, no access.
  case onHold = "on_hold"
  /// Google Play pause: the user paused renewals, no access until it resumes.
  case paused
  /// Ended: opted out, lapsed, or billing retry gave up.
  case expired
  /// Refunded or revoked by the store (including family sharing revoked).
  case revoked

  /// Whether this state grants access under the default access policy.
  public var isEntitledByDefault: Bool {
    switch self {
    case .trial, .introOffer, .active, .gracePeriod: true
    case .billingRetry, .onHold, .paused, .expired, .revoked: false
    }
  }
}

import TollgateCore

/// Whether a store's answer is newer than the state it would replace (`Reconciler.apply`). A
/// stale answer (a caching proxy replaying an earlier `200`, a lagging replica, a slower read) is
/// not applied: it fails as `transient`, so it is read again until the store catches up, and it
/// counts toward the store's outage (`ChainRefresher`).
///
/// - **Signed answers** (Apple) are ordered by signing time: an answer signed before the stored
///   state, or before the notification that asked for it, is stale.
/// - **Unsigned answers** (Google, Amazon: nothing in them says when they were made) are ordered
///   by what they contain. The facts below only move forward at a store, so an answer that, merged
///   into the stored history, would move one of them back is a copy of an earlier answer:
///   - a refund or revocation the store reported is missing;
///   - a cancellation that ended the chain (Amazon's passed `cancelDate`) is missing;
///   - the latest expiry is earlier, and nothing in the answer ends the chain sooner (a new
///     revocation or cancellation, a replacement, a new expiration intent or store state): a
///     renewal disappearing, which would shrink a payer's access;
///   - past the renewal leeway, it repeats what was stored before the expiry without a word on
///     whether the subscription renewed (`unconfirmedRenewal`, signed answers too).
enum AnswerOrdering {
  /// Why a signed answer is stale; nil when it is not, or not signed.
  static func signedStale(_ chain: VerifiedChain, stored: StoredSubscription?, notSignedBeforeMs: Int64?)
    -> StoreFailure?
  {
    guard let signedAt = chain.evidence.newestSignedAtMs else { return nil }
    let required = max(stored?.evidence.newestSignedAtMs ?? .min, notSignedBeforeMs ?? .min)
    guard signedAt < required else { return nil }
    return StoreFailure(
      .transient,
      "the store's answer was signed at \(signedAt), before the state it would replace (\(required)): "
        + "not applied until the store catches up")
  }

  /// Why an unsigned answer, merged into `stored` as `merged`, moves the chain backwards; nil when
  /// it does not.
  static func unsignedStale(_ chain: VerifiedChain, stored: SubscriptionHistory?, merged: SubscriptionHistory)
    -> StoreFailure?
  {
    guard chain.evidence.newestSignedAtMs == nil, let stored, let why = regression(from: stored, to: merged) else {
      return nil
    }
    return StoreFailure(
      .transient,
      "the store's answer would move the chain backwards (\(why)): a stale copy, not applied until the store catches up"
    )
  }

  /// Why an answer that brings nothing new cannot end a renewing subscription: past the renewal
  /// leeway (`lapsed`), still auto-renewing, no word of a cancellation or billing trouble, and
  /// nothing newer than what was stored before the expiry (signed no later than the stored state;
  /// unsigned, no new period, expiry or ending). A store that renewed would say so (a later
  /// expiry); one that stopped would say why; a live signed answer is signed now. Repeating the old
  /// answer is what a stale copy does, so the store is treated as not answering (the outage
  /// policy: access is kept up to `outageLeewayMs` after the expiry), and past that the answer is
  /// taken at its word.
  static func unconfirmedRenewal(
    _ chain: VerifiedChain, stored: StoredSubscription?, merged: SubscriptionHistory,
    evaluation: SubscriptionEvaluation, nowMs: Int64, outageLeewayMs: Int64
  ) -> StoreFailure? {
    guard let stored, evaluation.reason == .lapsed, nowMs - evaluation.expiresAtMs < outageLeewayMs else {
      return nil
    }
    let renewing = merged.renewalInfo.map { $0.willAutoRenew && $0.cancelDateMs == nil && $0.expirationIntent == nil }
    let nothingNewer =
      if let signedAt = chain.evidence.newestSignedAtMs {
        signedAt <= stored.evidence.newestSignedAtMs ?? .min
      } else {
        !Progress(merged).advances(beyond: Progress(stored.history))
      }
    guard renewing == true, nothingNewer else { return nil }
    return StoreFailure(
      .transient,
      "the store's answer repeats the stored one past the expiry (\(evaluation.expiresAtMs)) without saying whether "
        + "it renewed: taken as a stale copy, read again")
  }

  /// What `merged` lost that `stored` had, in words; nil when nothing.
  static func regression(from stored: SubscriptionHistory, to merged: SubscriptionHistory) -> String? {
    let before = Progress(stored)
    let after = Progress(merged)
    if !before.revoked.isSubset(of: after.revoked) { return "a refund or revocation the store reported is missing" }
    if before.cancelDateMs != nil && after.cancelDateMs == nil {
      return "a cancellation the store reported is missing"
    }
    if after.latestExpiryMs < before.latestExpiryMs && !after.endsSooner(than: before) {
      return "its latest expiry \(after.latestExpiryMs) is before the stored \(before.latestExpiryMs)"
    }
    return nil
  }

  /// The facts of a history that only move forward at a store.
  private struct Progress {
    var ids: Set<String>
    var revoked: Set<String>
    var cancelDateMs: Int64?
    var latestExpiryMs: Int64
    var replacedAtMs: Int64?
    var expirationIntent: ExpirationIntent?
    /// The state the store names (Google's subscriptionState), by its raw value.
    var storeState: String?

    init(_ history: SubscriptionHistory) {
      ids = Set(history.transactions.map(\.transactionId))
      revoked = Set(history.transactions.filter { $0.revocationDateMs != nil }.map(\.transactionId))
      cancelDateMs = history.renewalInfo?.cancelDateMs
      latestExpiryMs = history.transactions.map(\.expiresDateMs).max() ?? .min
      replacedAtMs = history.replacedAtMs
      expirationIntent = history.renewalInfo?.expirationIntent
      storeState = history.renewalInfo?.googlePlayState?.rawValue
    }

    /// Whether this says anything `earlier` did not: a new period, a later expiry, or an ending.
    func advances(beyond earlier: Progress) -> Bool {
      !ids.isSubset(of: earlier.ids) || latestExpiryMs > earlier.latestExpiryMs || endsSooner(than: earlier)
    }

    /// Whether this says something `earlier` did not that ends access sooner.
    func endsSooner(than earlier: Progress) -> Bool {
      !revoked.isSubset(of: earlier.revoked) || (cancelDateMs != nil && cancelDateMs != earlier.cancelDateMs)
        || (replacedAtMs != nil && earlier.replacedAtMs == nil)
        || (expirationIntent != nil && expirationIntent != earlier.expirationIntent)
        || storeState != earlier.storeState
    }
  }
}

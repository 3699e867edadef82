/// Where an Amazon subscription stands on the virtual clock.
public enum AmazonSubscriptionState: String, Sendable, Codable, Hashable {
  /// In a paid term (or a free trial: see `freeTrialEndMs`).
  case active
  /// A renewal failed; access continues until the grace end.
  case inGracePeriod
  /// Grace is over; Amazon still retries the payment (no access).
  case billingRetry
  /// Over: ended at term end (auto-renew off), payment never recovered, cancelled or replaced.
  case ended
}

/// One subscription: the chain of receipts of its terms (and of the tiers it moved through).
struct AmazonSubscription: Sendable {
  /// The first receipt id: the key the simulator files the subscription under.
  var subscriptionId: String
  var appPackageName: String
  var userId: String
  /// The term SKU of the current term.
  var termSku: String
  var testTransaction: Bool
  var betaProduct: Bool
  var state: AmazonSubscriptionState = .active
  var autoRenewing = true
  var failRenewals = false
  /// Receipt ids, oldest first; the last one is the current term's.
  var receiptIds: [String]
  var termEndMs: Int64
  var graceEndMs: Int64?
  /// A deferred tier change: the term SKU the next renewal moves to.
  var deferredSku: String?
  /// Bumped on every change that invalidates the events scheduled before it.
  var epoch = 0

  var currentReceiptId: String { receiptIds.last ?? subscriptionId }
}

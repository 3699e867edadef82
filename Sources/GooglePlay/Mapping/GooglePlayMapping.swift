import TollgateCore

/// A Google Play purchase mapped into Core: the history `SubscriptionLifecycle` evaluates, plus
/// what the mapping left out and why.
///
/// The mapping never invents an expiry. A line item without one becomes no period, and a state
/// that would entitle with no expiry anywhere gives a history with no periods, which grants
/// nothing (fail closed); `failsClosed` says so, for the caller to log and count.
public struct GooglePlayMapping: Sendable, Hashable {
  /// The app the purchase belongs to.
  public var packageName: String
  public var history: SubscriptionHistory
  /// `obfuscatedExternalAccountId`: the user binding the app set at purchase time.
  public var obfuscatedExternalAccountId: String?
  /// What was left out of `history`, in the order it was met.
  public var notes: [GooglePlayMappingNote]

  public init(
    packageName: String, history: SubscriptionHistory, obfuscatedExternalAccountId: String? = nil,
    notes: [GooglePlayMappingNote] = []
  ) {
    self.packageName = packageName
    self.history = history
    self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
    self.notes = notes
  }

  /// Whether Google's answer would entitle but the mapping could not find what access rests on
  /// (an expiry, a purchase time, a known state), so the history grants nothing.
  public var failsClosed: Bool { notes.contains { $0.failsClosed } }
}

/// Something of Google's answer the mapping left out of the history.
public enum GooglePlayMappingNote: Sendable, Hashable {
  /// An entitling `subscriptionState` (ACTIVE, IN_GRACE_PERIOD, CANCELED, or none given) with no
  /// line item that has an expiry: the history has no period and grants nothing.
  case entitlingStateWithoutExpiry(subscriptionState: String?)
  /// A `subscriptionState` Tollgate does not know: it grants nothing until it is understood.
  case unknownSubscriptionState(String)
  /// PENDING or PENDING_PURCHASE_CANCELED: not paid, no period.
  case notPaid(subscriptionState: String)
  /// A line item without `expiryTime`.
  case lineItemWithoutExpiry(productId: String?)
  /// A line item without `productId`.
  case lineItemWithoutProductId
  /// Line items that did not decode at all (`lineItems` elements that are not objects).
  case undecodableLineItems(count: Int)
  /// No `startTime`: periods start at the read (`asOfMs`) or at their expiry if earlier.
  case withoutStartTime
  /// A state without access (EXPIRED, ON_HOLD, PAUSED) reported an expiry after the read: the
  /// period ends at the read instead.
  case expiryCutAtRead(productId: String)
  /// A one-time purchase that is not PURCHASED (pending or canceled): raw state.
  case productNotPurchased(purchaseState: String?)
  /// A one-time purchase without its purchase time.
  case productWithoutPurchaseTime
  /// A rental: access for a time Google does not report here, so none is granted.
  case rentalWithoutExpiry(productId: String)

  /// Whether this note means access Google may intend was withheld.
  public var failsClosed: Bool {
    switch self {
    case .entitlingStateWithoutExpiry, .unknownSubscriptionState, .productWithoutPurchaseTime,
      .rentalWithoutExpiry:
      true
    case .notPaid, .lineItemWithoutExpiry, .lineItemWithoutProductId, .undecodableLineItems, .withoutStartTime,
      .expiryCutAtRead, .productNotPurchased:
      false
    }
  }
}

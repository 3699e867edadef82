import TollgateCore

/// Amazon receipts of one purchase chain mapped into Core: the history `SubscriptionLifecycle`
/// evaluates, plus what the mapping left out and why.
///
/// The mapping never invents an end. A subscription receipt with neither `renewalDate` nor
/// `cancelDate` becomes no period, and grants nothing (fail closed); `failsClosed` says so, for the
/// caller to log and count.
public struct AmazonMapping: Sendable, Hashable {
  public var history: SubscriptionHistory
  /// The Amazon user the receipts belong to, when a receipt names one.
  public var userId: String?
  /// What was left out of `history`, in the order it was met.
  public var notes: [AmazonMappingNote]

  public init(history: SubscriptionHistory, userId: String? = nil, notes: [AmazonMappingNote] = []) {
    self.history = history
    self.userId = userId
    self.notes = notes
  }

  /// Whether Amazon's answer may entitle but the mapping could not find what access rests on (a
  /// purchase date, an end, a product type it knows), so the history grants less than Amazon may
  /// intend.
  public var failsClosed: Bool { notes.contains { $0.failsClosed } }
}

/// Something of Amazon's answer the mapping left out of the history, or changed.
public enum AmazonMappingNote: Sendable, Hashable {
  /// No receipts were given: the history is empty.
  case noReceipts
  /// A CONSUMABLE: used up when bought, so it grants nothing lasting.
  case consumable(receiptId: String)
  /// A `productType` Tollgate does not know (raw value, or nil when absent): nothing granted.
  case unknownProductType(receiptId: String, productType: String?)
  /// A receipt without `purchaseDate`: no period.
  case withoutPurchaseDate(receiptId: String)
  /// A receipt without a product id or term SKU: no period.
  case withoutProductId(receiptId: String)
  /// A SUBSCRIPTION receipt with neither `renewalDate` nor `cancelDate`: no period.
  case subscriptionWithoutEnd(receiptId: String)
  /// A `gracePeriodEndDate` before the purchase: noise from an earlier term, not an expiry; dropped.
  case staleGracePeriodEndDate(receiptId: String, gracePeriodEndDate: Int64)
  /// A `cancelDate` after the read: access runs until then, and the term is cut there.
  case cancelDateAhead(receiptId: String, cancelDate: Int64)
  /// A `cancelDate` at or before the purchase: the receipt was cancelled before it began; its
  /// period is revoked.
  case cancelDateBeforePurchase(receiptId: String)
  /// A receipt whose fields could not all be read (names of the fields).
  case unreadableFields(receiptId: String, fields: [String])

  /// Whether this note means access Amazon may intend was withheld.
  public var failsClosed: Bool {
    switch self {
    case .unknownProductType, .withoutPurchaseDate, .withoutProductId, .subscriptionWithoutEnd: true
    case .noReceipts, .consumable, .staleGracePeriodEndDate, .cancelDateAhead, .cancelDateBeforePurchase,
      .unreadableFields:
      false
    }
  }
}

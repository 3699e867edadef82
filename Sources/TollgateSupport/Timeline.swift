import TollgateCore

/// Everything Tollgate knows happened to one user's purchases and grants, oldest first: each
/// chain's periods, trials, refunds and plan changes from its verified history; billing trouble,
/// pauses, transfers and refused claims from the events; the operator's grants; and where each
/// chain stands now (`TimelineBuilder`).
public struct Timeline: Sendable, Hashable {
  public var userId: String
  public var evaluatedAtMs: Int64
  public var entries: [Entry]

  public init(userId: String, evaluatedAtMs: Int64, entries: [Entry]) {
    self.userId = userId
    self.evaluatedAtMs = evaluatedAtMs
    self.entries = entries
  }

  /// What an entry says happened (the API's `kind` text, docs/http-api.md).
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    case period, trial
    case introOffer = "intro_offer"
    case refunded, revoked
    case productChanged = "product_changed"
    case graceStarted = "grace_started"
    case billingIssue = "billing_issue"
    case recovered
    case onHold = "on_hold"
    case paused, expired
    case optedOut = "opted_out"
    case optedIn = "opted_in"
    case transferredIn = "transferred_in"
    case transferredOut = "transferred_out"
    case transferRefused = "transfer_refused"
    case claimRefused = "claim_refused"
    case granted
    case grantRevoked = "grant_revoked"
    case grant
    case replacedBy = "replaced_by"
    case now
  }

  /// Where an entry comes from; entries at the same time are listed in this order.
  public enum Source: String, Sendable, Hashable, CaseIterable, Comparable {
    /// A chain's verified history (what the store signed).
    case history
    /// An event the worker or an operator wrote.
    case event
    /// A promotional grant.
    case grant
    /// The chain's state as last evaluated.
    case now

    public static func < (left: Source, right: Source) -> Bool { left.rank < right.rank }

    private var rank: Int {
      switch self {
      case .history: 0
      case .event: 1
      case .grant: 2
      case .now: 3
      }
    }
  }

  public struct Entry: Sendable, Hashable {
    public var atMs: Int64
    /// A span's end (a period, a grant, access now); nil for a point in time or a lifetime.
    public var untilMs: Int64?
    public var kind: Kind
    public var store: Store
    /// The chain (originalTransactionId / purchaseToken / receiptId), or a grant's id.
    public var purchaseId: String
    /// The product; for a grant, the entitlement it grants.
    public var productId: String?
    public var transactionId: String?
    /// When the store signed the payload the entry rests on (nil: unsigned, or not kept).
    public var signedAtMs: Int64?
    public var state: SubscriptionState?
    public var detail: String?
    public var source: Source
    /// The other purchase of a plan change: for `replaced_by`, the purchase that replaced this one
    /// (Google's linked token, an Amazon receipt of another tier); nil otherwise or when unknown.
    public var linkedPurchaseId: String? = nil
    /// Upgrade, downgrade or crossgrade, for `product_changed` and `replaced_by`, when the
    /// `product_changed` event the worker wrote ranked the two products (the catalog's groups).
    public var productChange: ProductChangeKind? = nil

    public init(
      atMs: Int64, untilMs: Int64? = nil, kind: Kind, store: Store, purchaseId: String, productId: String? = nil,
      transactionId: String? = nil, signedAtMs: Int64? = nil, state: SubscriptionState? = nil, detail: String? = nil,
      source: Source
    ) {
      self.atMs = atMs
      self.untilMs = untilMs
      self.kind = kind
      self.store = store
      self.purchaseId = purchaseId
      self.productId = productId
      self.transactionId = transactionId
      self.signedAtMs = signedAtMs
      self.state = state
      self.detail = detail
      self.source = source
    }
  }
}

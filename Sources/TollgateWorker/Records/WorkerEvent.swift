import TollgateCore

/// An outbound event: one state change of one subscription.
public struct WorkerEvent: Sendable, Hashable {
  public var userId: String?
  /// purchased, renewed, trial_converted, opted_out, opted_in, billing_issue, grace_started,
  /// recovered, expired, replaced (by another purchase: Google's linked token), refunded, revoked,
  /// upgraded, transferred, transfer_refused (the policy keeps the purchase with its owner, or the
  /// claim carried no fresh payload the store signed), claim_refused (the purchase's app account
  /// token names another user, or a caller not trusted with bare ids claimed with one).
  public var kind: String
  public var store: Store
  public var purchaseId: String
  public var productId: String?
  public var state: SubscriptionState?
  public var atMs: Int64
  public var detail: String?

  public init(
    userId: String?, kind: String, store: Store, purchaseId: String, productId: String?, state: SubscriptionState?,
    atMs: Int64, detail: String? = nil
  ) {
    self.userId = userId
    self.kind = kind
    self.store = store
    self.purchaseId = purchaseId
    self.productId = productId
    self.state = state
    self.atMs = atMs
    self.detail = detail
  }
}

/// An event as stored, with its id (the delivery order).
public struct StoredEvent: Sendable, Hashable {
  public var id: Int64
  public var event: WorkerEvent

  public init(id: Int64, event: WorkerEvent) {
    self.id = id
    self.event = event
  }
}

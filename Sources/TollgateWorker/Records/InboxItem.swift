import TollgateCore

/// One item of the durable inbox.
public struct InboxItem: Sendable, Hashable {
  public enum Kind: String, Sendable, Hashable {
    case purchase
    case notification
  }

  public var id: Int64
  public var kind: Kind
  /// For notifications, the route's name (`app_store.v2`, `app_store.v1`); for purchases, the store.
  public var store: String
  public var userId: String?
  public var payload: [UInt8]
  public var attempts: Int
  public var receivedAtMs: Int64
  /// The fencing token of the claim that handed this item out (`claimInbox`), new for every
  /// claim; 0 when the item was not claimed. Retrying or finishing the item carries it, and
  /// fails (`StorageConflict.claimLost`) once another claim has replaced this one.
  public var claimToken: Int64
  /// The id of the request that made the item (`RequestID`: a submission's, or a notification's
  /// at the worker's listener); nil for items stored before request ids existed. The worker logs
  /// it as `request_id` for the item, and the events the item causes carry it to their webhooks.
  public var requestId: String?

  public init(
    id: Int64, kind: Kind, store: String, userId: String?, payload: [UInt8], attempts: Int, receivedAtMs: Int64,
    claimToken: Int64 = 0, requestId: String? = nil
  ) {
    self.id = id
    self.kind = kind
    self.store = store
    self.userId = userId
    self.payload = payload
    self.attempts = attempts
    self.receivedAtMs = receivedAtMs
    self.claimToken = claimToken
    self.requestId = requestId
  }

  /// Which claim of this item the worker holds.
  public var claim: InboxClaim { InboxClaim(id: id, claimToken: claimToken) }
}

/// One claim of an inbox item: the item and the fencing token its claim handed out.
public struct InboxClaim: Sendable, Hashable {
  public var id: Int64
  public var claimToken: Int64

  public init(id: Int64, claimToken: Int64) {
    self.id = id
    self.claimToken = claimToken
  }
}

/// The end of a claimed inbox item that a subscription change writes with it
/// (`SubscriptionChange.completes`): `apply` writes nothing when the claim was lost.
public struct InboxCompletion: Sendable, Hashable {
  public var id: Int64
  public var claimToken: Int64
  public var state: SubmissionState
  public var outcome: String

  public init(id: Int64, claimToken: Int64, state: SubmissionState, outcome: String) {
    self.id = id
    self.claimToken = claimToken
    self.state = state
    self.outcome = outcome
  }

  public init(_ claim: InboxClaim, state: SubmissionState, outcome: String) {
    self.init(id: claim.id, claimToken: claim.claimToken, state: state, outcome: outcome)
  }
}

import TollgateContract

/// Everything a successful `GetSubscriptionResponse` carries, as views of bytes that live
/// elsewhere (the index's strings, the request's bytes), without building the protobuf message
/// or counting a reference to a `String` (but `reason`, a literal, and `replaces`, mostly empty):
/// the fast path writes it straight into the connection's output buffer
/// (`ByteBuffer.writeGetSubscriptionResponseFrame`), exactly the bytes swift-protobuf would write
/// for the same message. Valid only during the call it is passed to.
public struct GetSubscriptionAnswer {
  /// `user_id`: the request's bytes.
  public var userId: UnsafeRawBufferPointer
  public var evaluatedAtMs: Int64
  /// `subscriptions`, in order; each names its entitlements by their positions in `entitlementNames`.
  public var subscriptions: UnsafeBufferPointer<SubscriptionFields>
  /// UTF-8.
  public var entitlementNames: UnsafeBufferPointer<UnsafeRawBufferPointer>
  /// `entitlements`, in order.
  public var entitlements: UnsafeBufferPointer<EntitlementStatusFields>

  public init(
    userId: UnsafeRawBufferPointer, evaluatedAtMs: Int64, subscriptions: UnsafeBufferPointer<SubscriptionFields>,
    entitlementNames: UnsafeBufferPointer<UnsafeRawBufferPointer>,
    entitlements: UnsafeBufferPointer<EntitlementStatusFields>
  ) {
    self.userId = userId
    self.evaluatedAtMs = evaluatedAtMs
    self.subscriptions = subscriptions
    self.entitlementNames = entitlementNames
    self.entitlements = entitlements
  }
}

/// One `Subscription` of a `GetSubscriptionAnswer`.
public struct SubscriptionFields {
  public var store: Tollgate_V1_Store
  /// UTF-8; ignored when `numericStoreSubscriptionId` is set.
  public var storeSubscriptionId: UnsafeRawBufferPointer
  /// When set, the store subscription id is this number in decimal, written without a String.
  public var numericStoreSubscriptionId: UInt64?
  public var productId: UnsafeRawBufferPointer
  public var state: Tollgate_V1_SubscriptionState
  public var active: Bool
  public var expiresAtMs: Int64
  public var willRenew: Bool
  public var environment: Tollgate_V1_Environment
  public var verifiedAtMs: Int64
  /// `entitlements`: these positions of the answer's `entitlementNames`, in order.
  public var entitlements: Range<Int>
  /// `reason` ("" for none).
  public var reason: String
  public var replaces: [String]

  public init(
    store: Tollgate_V1_Store, storeSubscriptionId: UnsafeRawBufferPointer, numericStoreSubscriptionId: UInt64?,
    productId: UnsafeRawBufferPointer,
    state: Tollgate_V1_SubscriptionState, active: Bool, expiresAtMs: Int64, willRenew: Bool,
    environment: Tollgate_V1_Environment, verifiedAtMs: Int64, entitlements: Range<Int>, reason: String,
    replaces: [String]
  ) {
    self.store = store
    self.storeSubscriptionId = storeSubscriptionId
    self.numericStoreSubscriptionId = numericStoreSubscriptionId
    self.productId = productId
    self.state = state
    self.active = active
    self.expiresAtMs = expiresAtMs
    self.willRenew = willRenew
    self.environment = environment
    self.verifiedAtMs = verifiedAtMs
    self.entitlements = entitlements
    self.reason = reason
    self.replaces = replaces
  }
}

/// One `EntitlementStatus` of a `GetSubscriptionAnswer`: the entitlement's name (UTF-8) and the
/// answer IsSubscriber would give for it (its `evaluatedAtMs` is not part of the status).
public struct EntitlementStatusFields {
  public var entitlement: UnsafeRawBufferPointer
  public var answer: IsSubscriberAnswerView

  public init(entitlement: UnsafeRawBufferPointer, answer: IsSubscriberAnswerView) {
    self.entitlement = entitlement
    self.answer = answer
  }
}

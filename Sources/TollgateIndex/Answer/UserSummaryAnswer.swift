import TollgateCore

/// The index's GetSubscription answer for one user at one moment, as views of bytes the index
/// owns (its interned strings, a scratch copy of the text sources' ids): one subscription per
/// source that grants the user anything, and one status per entitlement. Nothing in it is a
/// `String` but `replaces`, so the fast path writes it without counting a reference. Valid only
/// during the call it is passed to (`EntitlementIndex.summarize`); the message path copies it
/// (`UserSummaryAnswer`).
public struct UserSummaryView {
  public var evaluatedAtMs: Int64
  /// By source, in the byte order of the sources' UTF-8.
  public var subscriptions: UnsafeBufferPointer<SubscriptionView>
  /// The subscriptions' entitlements' names (UTF-8), each subscription's a range of these
  /// (`SubscriptionView.entitlements`).
  public var entitlementNames: UnsafeBufferPointer<UnsafeRawBufferPointer>
  /// By entitlement, in the byte order of the names' UTF-8.
  public var entitlements: UnsafeBufferPointer<EntitlementStatusView>
}

/// A `SubscriptionAnswer` as views of bytes (`UserSummaryView`).
public struct SubscriptionView {
  public var store: Store
  /// Empty when `numericStoreSubscriptionId` is set.
  public var storeSubscriptionId: UnsafeRawBufferPointer
  public var numericStoreSubscriptionId: UInt64?
  public var productId: UnsafeRawBufferPointer
  public var state: SubscriptionState
  public var active: Bool
  public var expiresAtMs: Int64
  public var willRenew: Bool
  public var environment: StoreEnvironment
  public var verifiedAtMs: Int64
  public var entitlements: Range<Int>
  public var reason: StateReason?
  public var replaces: [String]
}

/// An `EntitlementStatusAnswer` as views of bytes (`UserSummaryView`).
public struct EntitlementStatusView {
  public var entitlement: UnsafeRawBufferPointer
  public var answer: EntitlementAnswerView
}

/// A `UserSummaryView` copied out of the index.
public struct UserSummaryAnswer: Sendable, Hashable {
  public var evaluatedAtMs: Int64
  public var subscriptions: [SubscriptionAnswer]
  public var entitlementNames: [String]
  public var entitlements: [EntitlementStatusAnswer]

  public init(_ view: UserSummaryView) {
    evaluatedAtMs = view.evaluatedAtMs
    subscriptions = view.subscriptions.map(SubscriptionAnswer.init)
    entitlementNames = view.entitlementNames.map { String(decoding: $0, as: UTF8.self) }
    entitlements = view.entitlements.map {
      EntitlementStatusAnswer(entitlement: String(decoding: $0.entitlement, as: UTF8.self), answer: .init($0.answer))
    }
  }

  /// The names of `subscription`'s entitlements.
  public func entitlements(of subscription: SubscriptionAnswer) -> ArraySlice<String> {
    entitlementNames[subscription.entitlements]
  }
}

/// One source that grants a user entitlements: its preferred record (`EntitlementRank`; its
/// records share the source, so nothing else breaks a tie and the first in the user's chain is
/// kept) evaluated at the answer's moment, and every entitlement its records grant.
public struct SubscriptionAnswer: Sendable, Hashable {
  public var store: Store
  /// The store's id of the subscription (the source after its first colon) when it is not a
  /// number; "" when it is (`numericStoreSubscriptionId`).
  public var storeSubscriptionId: String
  public var numericStoreSubscriptionId: UInt64?
  public var productId: String
  /// At the answer's moment (`atQueryTime`): an entitled state whose access has ended reads as `expired`.
  public var state: SubscriptionState
  public var active: Bool
  /// When access ends (the record's `accessEndsAtMs`).
  public var expiresAtMs: Int64
  public var willRenew: Bool
  public var environment: StoreEnvironment
  public var verifiedAtMs: Int64
  /// The positions of its records' entitlements in the answer's `entitlementNames`: every
  /// record's, in the byte order of their UTF-8.
  public var entitlements: Range<Int>
  /// The rule that decided the stored state; nil for none, and when the state has changed by
  /// itself since (`state` is not the stored one).
  public var reason: StateReason?
  /// The purchases the preferred record's purchase replaced, newest first.
  public var replaces: [String]

  /// The store's id of the subscription as the store writes it.
  public var storeSubscriptionIdText: String { numericStoreSubscriptionId.map { String($0) } ?? storeSubscriptionId }

  init(_ view: SubscriptionView) {
    store = view.store
    numericStoreSubscriptionId = view.numericStoreSubscriptionId
    storeSubscriptionId =
      view.numericStoreSubscriptionId == nil ? String(decoding: view.storeSubscriptionId, as: UTF8.self) : ""
    productId = String(decoding: view.productId, as: UTF8.self)
    state = view.state
    active = view.active
    expiresAtMs = view.expiresAtMs
    willRenew = view.willRenew
    environment = view.environment
    verifiedAtMs = view.verifiedAtMs
    entitlements = view.entitlements
    reason = view.reason
    replaces = view.replaces
  }
}

/// One entitlement a user holds or held, and the answer IsSubscriber gives for it.
public struct EntitlementStatusAnswer: Sendable, Hashable {
  public var entitlement: String
  public var answer: EntitlementAnswer
}

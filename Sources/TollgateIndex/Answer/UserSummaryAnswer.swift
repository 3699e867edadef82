import TollgateCore

/// The index's GetSubscription answer for one user at one moment, as views of values the index
/// owns: one subscription per source that grants the user anything, and one status per
/// entitlement. Valid only during the call it is passed to (`EntitlementIndex.summarize`); the
/// message path copies it (`UserSummaryAnswer`).
public struct UserSummaryView {
  public var evaluatedAtMs: Int64
  /// By source, in the byte order of the sources' UTF-8.
  public var subscriptions: UnsafeBufferPointer<SubscriptionAnswer>
  /// The subscriptions' entitlements, each subscription's a range of these (`SubscriptionAnswer.entitlements`).
  public var entitlementNames: UnsafeBufferPointer<String>
  /// By entitlement, in the byte order of the names' UTF-8.
  public var entitlements: UnsafeBufferPointer<EntitlementStatusAnswer>
}

/// A `UserSummaryView` copied out of the index.
public struct UserSummaryAnswer: Sendable, Hashable {
  public var evaluatedAtMs: Int64
  public var subscriptions: [SubscriptionAnswer]
  public var entitlementNames: [String]
  public var entitlements: [EntitlementStatusAnswer]

  public init(_ view: UserSummaryView) {
    evaluatedAtMs = view.evaluatedAtMs
    subscriptions = Array(view.subscriptions)
    entitlementNames = Array(view.entitlementNames)
    entitlements = Array(view.entitlements)
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
}

/// One entitlement a user holds or held, and the answer IsSubscriber gives for it.
public struct EntitlementStatusAnswer: Sendable, Hashable {
  public var entitlement: String
  public var answer: EntitlementAnswer
}

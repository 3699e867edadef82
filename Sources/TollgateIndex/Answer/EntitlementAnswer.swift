import TollgateCore

/// The index's answer to an `EntitlementQuery` at one moment: the user's preferred record for the
/// entitlement, evaluated then. A user or entitlement the index does not know answers inactive,
/// with nil state, store and environment.
public struct EntitlementAnswer: Sendable, Hashable {
  public var active = false
  /// When access ends (0: no record).
  public var expiresAtMs: Int64 = 0
  public var state: SubscriptionState?
  public var willRenew = false
  public var store: Store?
  public var productId = ""
  public var environment: StoreEnvironment?
  public var verifiedAtMs: Int64 = 0
  public var evaluatedAtMs: Int64 = 0
  /// The store's id of the subscription (an original transaction id, a purchase token, ...) when
  /// it is not a number; "" when it is (see `numericStoreSubscriptionId`) or there is no record.
  public var storeSubscriptionId = ""
  /// The store's id of the subscription when it is a decimal number (most App Store ids): kept as
  /// that number, so an answer owns no string for it.
  public var numericStoreSubscriptionId: UInt64?
  /// The access level the state gives under the catalog's `accessLevels` ("full", "none", or an
  /// operator's level such as "read_only"); "" when there is no record.
  public var accessLevel = ""

  public init() {}

  /// The store's id of the subscription as the store writes it ("" for none).
  public var storeSubscriptionIdText: String { numericStoreSubscriptionId.map { String($0) } ?? storeSubscriptionId }
}

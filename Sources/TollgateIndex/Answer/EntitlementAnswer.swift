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
  /// The store's id of the subscription (an original transaction id, a purchase token, ...).
  public var storeSubscriptionId = StoreSubscriptionId.none

  public init() {}

  /// The store's id of a subscription, kept as a number when it is one (most App Store ids), so
  /// an answer owns no string for it.
  public enum StoreSubscriptionId: Sendable, Hashable {
    case none
    case number(UInt64)
    case text(String)

    /// The id as the store writes it ("" for none).
    public var text: String {
      switch self {
      case .none: ""
      case .number(let number): String(number)
      case .text(let text): text
      }
    }
  }
}

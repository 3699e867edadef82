/// The JSON bodies of the App Store Server API endpoints Tollgate calls, as Apple names them.
/// Signed fields stay strings here; `SignedDataVerifier` verifies and decodes them.
public enum AppStoreServerAPI {
  /// Get All Subscription Statuses.
  public struct StatusResponse: Decodable, Sendable, Hashable {
    public var environment: String?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var data: [SubscriptionGroupIdentifierItem]?
  }

  public struct SubscriptionGroupIdentifierItem: Decodable, Sendable, Hashable {
    public var subscriptionGroupIdentifier: String?
    public var lastTransactions: [LastTransactionsItem]?
  }

  public struct LastTransactionsItem: Decodable, Sendable, Hashable {
    /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
    public var status: Int?
    public var originalTransactionId: String?
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?
  }

  /// Get Transaction History (v2).
  public struct HistoryResponse: Decodable, Sendable, Hashable {
    public var revision: String?
    public var hasMore: Bool?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: String?
    public var signedTransactions: [String]?
  }

  /// Get Transaction Info.
  public struct TransactionInfoResponse: Decodable, Sendable, Hashable {
    public var signedTransactionInfo: String?
  }

  /// Look Up Order ID.
  public struct OrderLookupResponse: Decodable, Sendable, Hashable {
    /// 0 valid, 1 invalid.
    public var status: Int?
    public var signedTransactions: [String]?
  }

  /// Get Refund History (v2).
  public struct RefundHistoryResponse: Decodable, Sendable, Hashable {
    public var signedTransactions: [String]?
    public var revision: String?
    public var hasMore: Bool?
  }

  /// The body of an error answer.
  public struct ErrorBody: Decodable, Sendable, Hashable {
    public var errorCode: Int?
    public var errorMessage: String?
  }
}

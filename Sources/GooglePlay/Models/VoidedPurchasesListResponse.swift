/// A page of `purchases.voidedpurchases.list`: purchases Google refunded, charged back or
/// revoked.
public struct VoidedPurchasesListResponse: Sendable, Hashable, Decodable {
  @LossyList public var voidedPurchases: [VoidedPurchase]?
  public var tokenPagination: TokenPagination?
  public var pageInfo: PageInfo?

  public init() {}
}

/// `tokenPagination`: pass `nextPageToken` as `token` for the next page.
public struct TokenPagination: Sendable, Hashable, Decodable {
  public var nextPageToken: String?
  public var previousPageToken: String?
}

/// `pageInfo`.
public struct PageInfo: Sendable, Hashable, Decodable {
  public var totalResults: Int?
  public var resultPerPage: Int?
  public var startIndex: Int?
}

/// One voided purchase.
public struct VoidedPurchase: Sendable, Hashable, Decodable {
  /// "androidpublisher#voidedPurchase".
  public var kind: String?
  public var purchaseToken: String?
  @GoogleMillis public var purchaseTimeMillis: Int64?
  @GoogleMillis public var voidedTimeMillis: Int64?
  public var orderId: String?
  /// 0 user, 1 developer, 2 Google.
  public var voidedSource: Int?
  /// 0 other, 1 remorse, 2 not received, 3 defective, 4 accidental purchase, 5 fraud,
  /// 6 friendly fraud, 7 chargeback.
  public var voidedReason: Int?
  /// For a partial refund of a multi-quantity purchase.
  public var voidedQuantity: Int?

  public init() {}

  public var typedVoidedSource: VoidedSource? { voidedSource.flatMap(VoidedSource.init(rawValue:)) }
  public var typedVoidedReason: VoidedReason? { voidedReason.flatMap(VoidedReason.init(rawValue:)) }
}

/// `voidedSource`.
public enum VoidedSource: Int, Sendable, Hashable, CaseIterable {
  case user = 0
  case developer = 1
  case google = 2
}

/// `voidedReason`.
public enum VoidedReason: Int, Sendable, Hashable, CaseIterable {
  case other = 0
  case remorse = 1
  case notReceived = 2
  case defective = 3
  case accidentalPurchase = 4
  case fraud = 5
  case friendlyFraud = 6
  case chargeback = 7
}

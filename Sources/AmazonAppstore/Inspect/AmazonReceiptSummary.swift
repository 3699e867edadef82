import TollgateCore

/// What `inspect amazon-receipt` says about an RVS receipt at a moment, in Amazon's words where
/// Amazon has them: whether `SubscriptionLifecycle` entitles the user from the mapped receipt,
/// until when, and the few facts a support engineer asks first. Built from any receipt that
/// decodes, even a partial one.
public struct AmazonReceiptSummary: Sendable, Hashable {
  /// SUBSCRIPTION, ENTITLED or CONSUMABLE (or what Amazon wrote, when Tollgate does not know it).
  public var productType: String?
  public var productId: String?
  public var receiptId: String?
  /// Whether the default access policy entitles the user at the moment.
  public var entitled: Bool
  /// When access ends per the receipt: the term's end (`renewalDate`, or a `cancelDate` that
  /// cuts it), an owned product's `cancelDate` still ahead; `nil` for an ENTITLED product owned
  /// for life, a CONSUMABLE, or a receipt the mapping could not turn into a period.
  public var expiresAtMs: Int64?
  public var cancelDateMs: Int64?
  /// Amazon's `cancelReason` (0 unknown, 1 customer, 2 billing failure, 3 Amazon, 4 tier change).
  public var cancelReason: Int?
  /// Whether Tollgate reads the subscription as renewing: `autoRenewing` and no `cancelDate`.
  public var autoRenew: Bool
  public var testTransaction: Bool
  /// Sandbox for a `testTransaction`, production otherwise.
  public var environment: StoreEnvironment

  /// `receipt` at `atMs` (read from RVS's production base).
  public init(receipt: RVSReceipt, atMs: Int64) {
    let mapping = AmazonMapping(receipt: receipt, environment: .production, asOfMs: atMs)
    self.init(receipt: receipt, mapping: mapping, atMs: atMs)
  }

  init(receipt: RVSReceipt, mapping: AmazonMapping, atMs: Int64) {
    let evaluation = SubscriptionLifecycle.evaluate(mapping.history, at: atMs)
    productType = receipt.typedProductType?.rawValue ?? receipt.productType
    productId = receipt.productId
    receiptId = receipt.receiptId
    entitled = !mapping.history.transactions.isEmpty && evaluation.isEntitled
    let end = mapping.history.transactions.map(\.expiresDateMs).max()
    expiresAtMs = end == Int64.max ? nil : end
    cancelDateMs = receipt.cancelDate
    cancelReason = receipt.cancelReason
    autoRenew = mapping.history.renewalInfo?.willAutoRenew ?? false
    testTransaction = receipt.isTestTransaction
    environment = mapping.history.environment
  }

  /// The summary as `inspect` prints it.
  public var jsonObject: [String: Any] {
    [
      "productType": AmazonInspection.orNull(productType), "productId": AmazonInspection.orNull(productId),
      "receiptId": AmazonInspection.orNull(receiptId), "entitled": entitled,
      "expiresAtMs": AmazonInspection.orNull(expiresAtMs), "cancelDateMs": AmazonInspection.orNull(cancelDateMs),
      "cancelReason": AmazonInspection.orNull(cancelReason), "autoRenew": autoRenew,
      "testTransaction": testTransaction, "environment": environment.rawValue,
    ]
  }
}

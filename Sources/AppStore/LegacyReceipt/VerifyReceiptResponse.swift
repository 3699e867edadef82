import Foundation

/// A decoded verifyReceipt answer (the HTTP call is `VerifyReceiptClient`'s). Also the shape of
/// a V1 notification's `unified_receipt`.
public struct VerifyReceiptResponse: Sendable, Hashable {
  public var status: Int
  public var environment: String?
  /// Apple's `is-retryable` flag (sent with 21100–21199).
  public var isRetryableFlag: Bool?
  /// `receipt.bundle_id` (or `bid` in iOS 6 receipts).
  public var bundleId: String?
  @Milliseconds public var receiptCreationDate: Int64?
  /// `receipt.in_app` (or the iOS 6 receipt itself as one entry).
  public var inApp: [LegacyInAppPurchase]
  public var latestReceiptInfo: [LegacyInAppPurchase]
  public var pendingRenewalInfo: [LegacyPendingRenewalInfo]
  public var latestReceipt: String?

  public var typedStatus: VerifyReceiptStatus { VerifyReceiptStatus(rawValue: status) }
  public var isRetryable: Bool { typedStatus.isRetryable || isRetryableFlag == true }

  /// `latest_receipt_info` when Apple sent it (it includes renewals after the receipt was
  /// made), else `in_app`.
  public var transactions: [LegacyInAppPurchase] { latestReceiptInfo.isEmpty ? inApp : latestReceiptInfo }

  /// Decodes a verifyReceipt body; `nil` if it is not a JSON object with a numeric status.
  public static func decode(_ body: Data) -> VerifyReceiptResponse? {
    guard let json = LegacyJSON(data: body) else { return nil }
    return VerifyReceiptResponse(json: json)
  }

  init?(json: LegacyJSON) {
    guard let status = json.int64("status").flatMap({ Int(exactly: $0) }) else { return nil }
    self.status = status
    environment = json.string("environment")
    isRetryableFlag = json.bool("is-retryable")
    let receipt = json.child("receipt")
    bundleId = receipt?.string("bundle_id") ?? receipt?.string("bid")
    receiptCreationDate = receipt?.milliseconds("receipt_creation_date")
    if let entries = receipt?.children("in_app") {
      inApp = entries.map(LegacyInAppPurchase.init(json:))
    } else if let receipt, receipt.string("transaction_id") != nil {
      inApp = [LegacyInAppPurchase(json: receipt)]
    } else {
      inApp = []
    }
    latestReceiptInfo = json.children("latest_receipt_info")?.map(LegacyInAppPurchase.init(json:)) ?? []
    pendingRenewalInfo = json.children("pending_renewal_info")?.map(LegacyPendingRenewalInfo.init(json:)) ?? []
    latestReceipt = json.string("latest_receipt")
  }
}

/// One entry of `in_app` / `latest_receipt_info`. Times are ms (the `_ms` fields win over the
/// date strings).
public struct LegacyInAppPurchase: Sendable, Hashable {
  public var quantity: Int64?
  public var productId: String?
  public var transactionId: String?
  public var originalTransactionId: String?
  public var webOrderLineItemId: String?
  public var purchaseDateMs: Int64?
  public var originalPurchaseDateMs: Int64?
  public var expiresDateMs: Int64?
  public var cancellationDateMs: Int64?
  /// "0" other, "1" an issue with the app.
  public var cancellationReason: String?
  public var isTrialPeriod: Bool?
  public var isInIntroOfferPeriod: Bool?
  public var isUpgraded: Bool?
  public var promotionalOfferId: String?
  public var offerCodeRefName: String?
  public var subscriptionGroupIdentifier: String?
  public var inAppOwnershipType: String?

  init(json: LegacyJSON) {
    quantity = json.int64("quantity")
    productId = json.string("product_id")
    transactionId = json.string("transaction_id")
    originalTransactionId = json.string("original_transaction_id")
    webOrderLineItemId = json.string("web_order_line_item_id")
    purchaseDateMs = json.milliseconds("purchase_date")
    originalPurchaseDateMs = json.milliseconds("original_purchase_date")
    expiresDateMs = json.milliseconds("expires_date")
    cancellationDateMs = json.milliseconds("cancellation_date")
    cancellationReason = json.string("cancellation_reason")
    isTrialPeriod = json.bool("is_trial_period")
    isInIntroOfferPeriod = json.bool("is_in_intro_offer_period")
    isUpgraded = json.bool("is_upgraded")
    promotionalOfferId = json.string("promotional_offer_id")
    offerCodeRefName = json.string("offer_code_ref_name")
    subscriptionGroupIdentifier = json.string("subscription_group_identifier")
    inAppOwnershipType = json.string("in_app_ownership_type")
  }
}

/// One entry of `pending_renewal_info`.
public struct LegacyPendingRenewalInfo: Sendable, Hashable {
  public var autoRenewProductId: String?
  public var productId: String?
  public var originalTransactionId: String?
  /// "1" on, "0" off.
  public var autoRenewStatus: Bool?
  public var expirationIntent: Int?
  public var gracePeriodExpiresDateMs: Int64?
  public var isInBillingRetryPeriod: Bool?
  /// "0" not yet consented to a price increase, "1" consented.
  public var priceConsentStatus: Int?
  public var offerCodeRefName: String?
  public var promotionalOfferId: String?

  init(json: LegacyJSON) {
    autoRenewProductId = json.string("auto_renew_product_id")
    productId = json.string("product_id")
    originalTransactionId = json.string("original_transaction_id")
    autoRenewStatus = json.bool("auto_renew_status")
    expirationIntent = json.int64("expiration_intent").flatMap { Int(exactly: $0) }
    gracePeriodExpiresDateMs = json.milliseconds("grace_period_expires_date")
    isInBillingRetryPeriod = json.bool("is_in_billing_retry_period")
    priceConsentStatus = json.int64("price_consent_status").flatMap { Int(exactly: $0) }
    offerCodeRefName = json.string("offer_code_ref_name")
    promotionalOfferId = json.string("promotional_offer_id")
  }
}

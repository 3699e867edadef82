import AppStore
import Foundation
import Testing
import TollgateCore
import TollgateTesting

/// verifyReceipt bodies (legacy-verifyreceipt/), status codes, V1 notifications.
@Suite("Legacy verifyReceipt and V1 notifications")
struct LegacyTests {
  @Test(.enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
  func sandboxAutoRenew2017() throws {
    let body = Data(
      try Vectors.bytes("apple/legacy-verifyreceipt/itunes-iap-verifyreceipt-sandbox-autorenew-2017.json"))
    let response = try #require(VerifyReceiptResponse.decode(body))
    #expect(
      response.typedStatus == .valid && response.environment == "Sandbox" && response.bundleId == "com.example.app")
    #expect(response.receiptCreationDate == 1_500_973_280_000)
    #expect(response.inApp.count == 13 && response.latestReceiptInfo.count == 18)
    #expect(response.transactions.count == 18)  // latest_receipt_info wins over in_app
    let first = try #require(response.transactions.first)
    #expect(first.transactionId == "1000000318012065" && first.purchaseDateMs == 1_500_884_004_000)
    #expect(first.expiresDateMs == 1_500_884_304_000 && first.isTrialPeriod == false)
    let renewal = try #require(response.pendingRenewalInfo.first)
    #expect(
      renewal.autoRenewStatus == false && renewal.expirationIntent == 1 && renewal.isInBillingRetryPeriod == false)
    let histories = SubscriptionHistory.appStoreLegacy(response, asOfMs: 1)
    #expect(!histories.isEmpty && histories.allSatisfy { $0.environment == .sandbox })
    #expect(histories.flatMap(\.transactions).count == 18)
  }

  @Test(.enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
  func iOS6AutoRenew2012() throws {
    let body = Data(
      try Vectors.bytes("apple/legacy-verifyreceipt/itunes-iap-verifyreceipt-ios6-autorenew-gist-2012.json"))
    let response = try #require(VerifyReceiptResponse.decode(body))
    #expect(response.bundleId == "com.example.001")
    let latest = try #require(response.latestReceiptInfo.first)
    #expect(response.latestReceiptInfo.count == 1)
    // iOS 6: expires_date holds ms; purchase_date_ms wins over the date string.
    #expect(latest.expiresDateMs == 1_354_436_154_000 && latest.purchaseDateMs == 1_354_432_554_000)
    #expect(response.inApp.first?.transactionId == "1000000059630000")
  }

  @Test func dateStringsWhenMsAreMissing() throws {
    let body = """
      {"status":0,"latest_receipt_info":[{"transaction_id":"1","product_id":"p","purchase_date":"2017-07-24 08:13:24 Etc/GMT",
      "expires_date":"2017-07-24 08:18:24 Etc/GMT","cancellation_date_ms":"1500884100000","cancellation_reason":"1"}],
      "pending_renewal_info":[{"auto_renew_status":"1","grace_period_expires_date_ms":"1500884400000",
      "price_consent_status":"0","auto_renew_product_id":"q","original_transaction_id":"1"}]}
      """
    let response = try #require(VerifyReceiptResponse.decode(Data(body.utf8)))
    let entry = try #require(response.transactions.first)
    #expect(entry.purchaseDateMs == 1_500_884_004_000 && entry.expiresDateMs == 1_500_884_304_000)
    let core = try #require(StoreTransaction(appStoreLegacy: entry))
    #expect(core.isRevoked && core.revocationDateMs == 1_500_884_100_000)
    let renewal = RenewalInfo(appStoreLegacy: try #require(response.pendingRenewalInfo.first))
    #expect(renewal.willAutoRenew && renewal.priceIncreaseStatus == .pending && renewal.autoRenewProductId == "q")
    #expect(renewal.gracePeriodExpiresDateMs == 1_500_884_400_000)
  }

  @Test(arguments: [
    (0, VerifyReceiptStatus.valid, false), (21000, .badRequestMethod, false), (21001, .obsolete, false),
    (21002, .malformedReceiptData, false), (21003, .receiptNotAuthenticated, false),
    (21004, .sharedSecretMismatch, false), (21005, .receiptServerUnavailable, true),
    (21006, .subscriptionExpired, false),
    (21007, .sandboxReceiptSentToProduction, false), (21008, .productionReceiptSentToSandbox, false),
    (21009, .internalDataAccessError, true), (21010, .accountNotFound, false), (21150, .internalError(21150), true),
    (12345, .unknown(12345), false),
  ])
  func statusCodes(raw: Int, status: VerifyReceiptStatus, retryable: Bool) throws {
    #expect(VerifyReceiptStatus(rawValue: raw) == status)
    #expect(status.isRetryable == retryable)
    let response = try #require(VerifyReceiptResponse.decode(Data("{\"status\":\(raw)}".utf8)))
    #expect(response.typedStatus == status && response.transactions.isEmpty)
  }

  static let v1Body = Data(
    """
    {"notification_type":"DID_CHANGE_RENEWAL_STATUS","password":"s3cret","environment":"PROD","bid":"com.example",
    "auto_renew_status":"false","auto_renew_product_id":"pro","original_transaction_id":"1000",
    "unified_receipt":{"status":0,"environment":"Production","latest_receipt":"abc",
    "latest_receipt_info":[{"transaction_id":"1001","original_transaction_id":"1000","product_id":"pro",
    "purchase_date_ms":"1600000000000","expires_date_ms":"1602592000000"}],
    "pending_renewal_info":[{"original_transaction_id":"1000","auto_renew_status":"0","product_id":"pro"}]}}
    """.utf8)

  @Test func notificationV1() throws {
    let notification = try #require(NotificationV1.verify(body: Self.v1Body, sharedSecret: "s3cret").payload)
    #expect(notification.eventKind == .autoRenewDisabled && notification.storeEnvironment == .production)
    #expect(notification.unifiedReceipt?.latestReceiptInfo.count == 1)
    let event = try #require(StoreEvent(appStoreV1: notification, eventId: "e1", receivedAtMs: 5))
    #expect(event.purchaseId == "1000" && event.transactions.map(\.transactionId) == ["1001"])
    #expect(event.renewalInfo?.willAutoRenew == false)
  }

  @Test func notificationV1Rejections() {
    #expect(NotificationV1.verify(body: Self.v1Body, sharedSecret: "other").error?.code == .invalidSharedSecret)
    #expect(NotificationV1.verify(body: Self.v1Body, sharedSecret: "").error?.code == .invalidSharedSecret)
    #expect(
      NotificationV1.verify(body: Self.v1Body, sharedSecret: "s3cret", bundleId: "com.x").error?.code
        == .invalidAppIdentifier)
    #expect(NotificationV1.verify(body: Data("[]".utf8), sharedSecret: "s3cret").error?.code == .malformedPayload)
  }
}

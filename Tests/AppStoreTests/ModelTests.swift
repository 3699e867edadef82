import AppStore
import Foundation
import Testing
import TollgateCore
import TollgateTesting

/// EXPECTED-apple.md: "apple-lib/models" (plain JSON decodes) and their mapping into Core.
@Suite("Apple wire models", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct ModelTests {
  func model<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(try Vectors.bytes("apple/apple-lib/models/\(name).json")))
  }

  @Test func signedNotification() throws {
    let n: ResponseBodyV2DecodedPayload = try model("signedNotification")
    #expect(n.typedNotificationType == .subscribed && n.typedSubtype == .initialBuy)
    #expect(n.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20" && n.version == "2.0")
    #expect(n.signedDate == 1_698_148_900_000)
    #expect(n.data?.environment == "LocalTesting" && n.data?.appAppleId == 41234 && n.data?.bundleId == "com.example")
    #expect(n.data?.bundleVersion == "1.2.3" && n.data?.status == 1)
    #expect(n.summary == nil && n.externalPurchaseToken == nil)
  }

  @Test func consumptionRequestAndSummary() throws {
    let c: ResponseBodyV2DecodedPayload = try model("signedConsumptionRequestNotification")
    #expect(c.typedNotificationType == .consumptionRequest && c.subtype == nil)
    #expect(c.data?.consumptionRequestReason == "UNINTENDED_PURCHASE")
    let s: ResponseBodyV2DecodedPayload = try model("signedSummaryNotification")
    #expect(s.typedNotificationType == .renewalExtension && s.typedSubtype == .summary && s.data == nil)
    #expect(s.summary?.requestIdentifier == "efb27071-45a4-4aca-9854-2a1e9146f265")
    #expect(s.summary?.storefrontCountryCodes == ["CAN", "USA", "MEX"])
    #expect(s.summary?.succeededCount == 5 && s.summary?.failedCount == 2)
    #expect(s.appContext.bundleId == "com.example" && s.appContext.environment == "LocalTesting")
  }

  @Test(arguments: [
    ("signedExternalPurchaseTokenNotification", "Production"),
    ("signedExternalPurchaseTokenSandboxNotification", "Sandbox"),
  ])
  func externalPurchaseToken(file: String, environment: String) throws {
    let n: ResponseBodyV2DecodedPayload = try model(file)
    #expect(n.typedNotificationType == .externalPurchaseToken && n.typedSubtype == .unreported)
    #expect(n.externalPurchaseToken?.appAppleId == 55555)
    #expect(n.externalPurchaseToken?.tokenCreationDate == 1_698_148_950_000)
    #expect(n.appContext.environment == environment)
  }

  @Test func rescindConsent() throws {
    let n: ResponseBodyV2DecodedPayload = try model("signedRescindConsentNotification")
    #expect(n.typedNotificationType == .rescindConsent && n.data == nil)
    #expect(n.appData?.appAppleId == 41234 && n.appData?.environment == "LocalTesting")
    #expect(n.appData?.signedAppTransactionInfo == "signed_app_transaction_info_value")
    let appData: AppData = try model("appData")
    #expect(appData.appAppleId == 987_654_321)
  }

  @Test func signedTransactionMapsAsRevoked() throws {
    let t: JWSTransactionDecodedPayload = try model("signedTransaction")
    #expect(t.transactionId == "23456" && t.originalTransactionId == "12345" && t.webOrderLineItemId == "34343")
    #expect(t.purchaseDate == 1_698_148_900_000 && t.expiresDate == 1_698_149_000_000)
    #expect(t.revocationDate == 1_698_148_950_000 && t.revocationReason == 1)
    #expect(t.isUpgraded == true && t.typedOfferType == .introductory && t.offerIdentifier == "abc.123")
    #expect(
      t.typedOfferDiscountType == .payAsYouGo && t.offerPeriod == "P1Y" && t.price == 10990 && t.currency == "USD")
    #expect(t.appTransactionId == "71134" && t.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
    #expect(t.billingPlanType == "MONTHLY")
    let core = try #require(StoreTransaction(appStore: t))
    #expect(core.isRevoked && core.revocationReason == .refunded && core.revocationDateMs == 1_698_148_950_000)
    #expect(core.offerType == .introductory && core.offerDiscountType == .payAsYouGo && core.isUpgraded)
    let revoked: JWSTransactionDecodedPayload = try model("signedTransactionWithRevocation")
    #expect(revoked.revocationType == "REFUND_PRORATED" && revoked.revocationPercentage == 50000)
  }

  @Test func signedRenewalInfoMaps() throws {
    let r: JWSRenewalInfoDecodedPayload = try model("signedRenewalInfo")
    #expect(r.expirationIntent == 1 && r.autoRenewProductId == "com.example.product.2" && r.autoRenewStatus == 1)
    #expect(r.isInBillingRetryPeriod == true && r.gracePeriodExpiresDate == 1_698_148_900_000)
    #expect(r.priceIncreaseStatus == 0 && r.offerType == 2 && r.renewalDate == 1_698_148_850_000)
    #expect(r.renewalPrice == 9990 && r.eligibleWinBackOfferIds == ["eligible1", "eligible2"])
    let core = RenewalInfo(appStore: r)
    #expect(core.willAutoRenew && core.autoRenewProductId == "com.example.product.2")
    #expect(core.expirationIntent == .customerCanceled && core.isInBillingRetryPeriod)
    #expect(core.gracePeriodExpiresDateMs == 1_698_148_900_000 && core.priceIncreaseStatus == .pending)
  }

  @Test func appTransaction() throws {
    let a: AppTransaction = try model("appTransaction")
    #expect(a.typedReceiptType == .localTesting && a.appAppleId == 531_412 && a.bundleId == "com.example")
    #expect(a.versionExternalIdentifier == 512 && a.originalPurchaseDate == 1_698_148_800_000)
    #expect(a.preorderDate == 1_698_148_700_000 && a.originalPlatform == "iOS")
  }

  @Test func subscriptionStatusesAndHistory() throws {
    let statuses: AppStoreServerAPI.StatusResponse = try model("getAllSubscriptionStatusesResponse")
    #expect(statuses.environment == "LocalTesting" && statuses.appAppleId == 5_454_545)
    #expect(statuses.data?.map(\.subscriptionGroupIdentifier) == ["sub_group_one", "sub_group_two"])
    #expect(statuses.data?.first?.lastTransactions?.map(\.status) == [1, 5])
    let history: AppStoreServerAPI.HistoryResponse = try model("transactionHistoryResponse")
    #expect(history.revision == "revision_output" && history.hasMore == true && history.appAppleId == 323_232)
    #expect(history.signedTransactions?.count == 2)
    let malformedEnvironment: AppStoreServerAPI.HistoryResponse = try model(
      "transactionHistoryResponseWithMalformedEnvironment")
    #expect(malformedEnvironment.environment == "LocalTestingxxx")
    #expect(AppStoreEnvironment(rawValue: malformedEnvironment.environment ?? "") == nil)
    #expect(throws: (any Error).self) {
      try model("transactionHistoryResponseWithMalformedAppAppleId", as: AppStoreServerAPI.HistoryResponse.self)
    }
  }

  @Test func notificationMapsToStoreEvent() throws {
    var transaction: JWSTransactionDecodedPayload = try model("signedTransaction")
    transaction.revocationDate = nil
    let renewal: JWSRenewalInfoDecodedPayload = try model("signedRenewalInfo")
    var notification: ResponseBodyV2DecodedPayload = try model("signedNotification")
    let verified = VerifiedNotification(notification: notification, transaction: transaction, renewalInfo: renewal)
    let event = try #require(StoreEvent(appStore: verified))
    #expect(event.store == .appStore && event.purchaseId == "12345" && event.kind == .purchased)
    #expect(event.eventId == "002e14d5-51f5-4503-b5a8-c3a1af68eb20" && event.occurredAtMs == 1_698_148_900_000)
    #expect(event.environment == .sandbox && event.transactions.map(\.transactionId) == ["23456"])
    #expect(event.renewalInfo?.willAutoRenew == true)
    notification.notificationType = "SOMETHING_NEW"
    #expect(
      StoreEvent(appStore: VerifiedNotification(notification: notification, transaction: transaction))?.kind
        == .informational)
    #expect(StoreEvent(appStore: VerifiedNotification(notification: notification)) == nil)
    let history = SubscriptionHistory(
      appStoreOriginalTransactionId: "12345", transactions: [transaction], renewalInfo: renewal, asOfMs: 1)
    #expect(history.source == "app_store:12345" && history.transactions.count == 1)
  }

  @Test func everyDocumentedNotificationTypeDecodes() throws {
    for type in NotificationTypeV2.allCases {
      for subtype in [nil] + NotificationSubtype.allCases.map(\.rawValue) {
        var object: [String: Any] = ["notificationType": type.rawValue, "signedDate": 1.5]
        object["subtype"] = subtype
        let data = try JSONSerialization.data(withJSONObject: object)
        let decoded = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: data)
        #expect(decoded.typedNotificationType == type && decoded.subtype == subtype && decoded.signedDate == 1)
      }
    }
  }
}

import Foundation
import GooglePlay
import Testing
import TollgateCore
import TollgateTesting

/// vectors/google/aporat-subscriptionsv2: purchases.subscriptionsv2 bodies decode with Google's
/// names, unknown fields ignored and unknown enum values kept raw.
@Suite("subscriptionsv2 models", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct ModelSubscriptionTests {
  func resource(_ name: String) throws -> SubscriptionPurchaseV2 {
    try GoogleVectors.decode("aporat-subscriptionsv2/\(name).json")
  }

  @Test func activeAcknowledged() throws {
    let s = try resource("subscriptionsv2-active-acknowledged")
    #expect(s.kind == "androidpublisher#subscriptionPurchaseV2" && s.regionCode == "US")
    #expect(s.typedSubscriptionState == .active && s.typedAcknowledgementState == .acknowledged)
    #expect(s.startTime == ms("2025-10-05T14:32:11.512Z") && s.latestOrderId == "GPA.3333-4444-5555-66666..5")
    #expect(!s.isTestPurchase && s.linkedPurchaseToken == nil)
    #expect(s.externalAccountIdentifiers?.obfuscatedExternalAccountId == "5E8A3B2C-1D4F-4E6A-9B7C-8D9E0F1A2B3C")
    #expect(s.externalAccountIdentifiers?.obfuscatedExternalProfileId == "profile-1")
    let item = try #require(s.lineItems?.first)
    #expect(s.lineItems?.count == 1 && s.$lineItems.droppedCount == 0)
    #expect(item.productId == "app.example.subscription" && item.expiryTime == 1_791_210_731_512)
    #expect(item.autoRenewingPlan?.autoRenewEnabled == true)
    #expect(item.autoRenewingPlan?.recurringPrice == Money(currencyCode: "USD", units: "9", nanos: 990_000_000))
    #expect(item.offerDetails?.basePlanId == "annually" && item.offerDetails?.offerId == "intro-7day")
    #expect(item.offerDetails?.offerTags == ["intro", "campaign-fall"])
    #expect(item.latestSuccessfulOrderId == "GPA.3333-4444-5555-66666..5" && item.offerPhase == nil)
  }

  @Test func canceledTestLinkedPrepaidAddon() throws {
    let s = try resource("subscriptionsv2-canceled-test-linked-prepaid-addon")
    #expect(s.typedSubscriptionState == .canceled && s.typedAcknowledgementState == .pending)
    #expect(s.isTestPurchase && s.linkedPurchaseToken == "older-token")
    let user = try #require(s.canceledStateContext?.userInitiatedCancellation)
    #expect(user.cancelSurveyResult?.reason == "CANCEL_SURVEY_REASON_COST_RELATED")
    #expect(user.cancelTime == ms("2026-09-01T10:00:00Z"))
    #expect(s.canceledStateContext?.systemInitiatedCancellation == nil)
    #expect(s.subscribeWithGoogleInfo?.emailAddress == "user@example.com")
    let items = try #require(s.lineItems)
    #expect(items.count == 2)
    let change = try #require(items[0].autoRenewingPlan?.priceChangeDetails)
    #expect(items[0].autoRenewingPlan?.autoRenewEnabled == false)
    #expect(change.priceChangeState == "OUTSTANDING" && change.priceChangeMode == "PRICE_INCREASE")
    #expect(
      change.newPrice?.amountMicros == 8_490_000 && change.expectedNewPriceChargeTime == ms("2026-09-20T00:00:00Z"))
    #expect(items[0].deferredItemReplacement?.productId == "app.example.subscription.plus")
    #expect(items[1].prepaidPlan?.allowExtendAfterTime == ms("2026-12-25T00:00:00Z"))
    #expect(items[1].autoRenewingPlan == nil && items[1].expiryTime == ms("2027-01-01T00:00:00Z"))
  }

  @Test func onHoldInstallmentsFreeTrial() throws {
    let s = try resource("subscriptionsv2-on-hold-installments-free-trial")
    #expect(s.typedSubscriptionState == .onHold && s.etag == "etag-on-hold")
    #expect(s.onHoldStateContext?.renewalDeclined?.pendingOrderId == "GPA.5555-4444-3333-22222..4")
    #expect(s.outOfAppPurchaseContext?.expiredPurchaseToken == "replaced-token")
    let items = try #require(s.lineItems)
    let plan = try #require(items[0].autoRenewingPlan)
    #expect(plan.installmentDetails?.initialCommittedPaymentsCount == 12)
    #expect(plan.installmentDetails?.remainingCommittedPaymentsCount == 4)
    #expect(plan.installmentDetails?.pendingCancellation != nil)
    #expect(plan.priceStepUpConsentDetails?.state == "PENDING")
    #expect(plan.priceStepUpConsentDetails?.consentDeadlineTime == ms("2026-10-01T00:00:00Z"))
    #expect(items[0].offerPhase?.freeTrial != nil && items[0].offerPhase?.basePrice == nil)
    #expect(items[0].itemReplacement?.replacementMode == "CHARGE_PRORATED_PRICE")
    #expect(items[0].deferredItemRemoval != nil && items[0].offerDetails?.offerTags == [])
    #expect(items[1].offerPhase?.prorationPeriod?.originalOfferPhaseType == "INTRODUCTORY")
  }

  @Test func partialGraceAndPaused() throws {
    let grace = try resource("subscriptionsv2-partial-in-grace-renewal-declined")
    #expect(grace.typedSubscriptionState == .inGracePeriod && grace.lineItems == nil)
    #expect(grace.inGracePeriodStateContext?.renewalDeclined?.pendingOrderId == "GPA.1")
    let paused = try resource("subscriptionsv2-partial-paused-auto-resume")
    #expect(paused.typedSubscriptionState == .paused)
    #expect(paused.pausedStateContext?.autoResumeTime == ms("2026-10-01T00:00:00Z"))
    // `"testPurchase": null` is no test purchase: only its presence as an object marks one.
    #expect(!paused.isTestPurchase)
  }

  @Test func anUnknownStateDecodesRaw() throws {
    let s = try resource("subscriptionsv2-partial-unknown-state")
    #expect(s.subscriptionState == "SUBSCRIPTION_STATE_FROM_THE_FUTURE" && s.typedSubscriptionState == nil)
    #expect(s.acknowledgementState == "WHO_KNOWS" && s.typedAcknowledgementState == nil)
  }

  @Test func aLineItemThatIsNotAnObjectIsDroppedAndCounted() throws {
    let s = try resource("subscriptionsv2-partial-active-lineitems-without-expiry")
    #expect(s.lineItems?.map(\.productId) == ["a", "b"] && s.$lineItems.droppedCount == 1)
    #expect(s.lineItems?.allSatisfy { $0.expiryTime == nil } == true)
    let mixed = try resource("subscriptionsv2-partial-mixed-expiry-lineitems")
    #expect(mixed.lineItems?.map(\.productId) == ["undated", "early", "late", "middle"])
    #expect(
      mixed.lineItems?.map(\.expiryTime) == [
        nil, ms("2026-01-01T00:00:00Z"), ms("2026-06-01T00:00:00Z"), ms("2026-03-01T00:00:00Z"),
      ])
  }

  @Test func apiErrorBodies() throws {
    let mismatch: GoogleAPIErrorResponse = try GoogleVectors.decode(
      "aporat-subscriptionsv2/api-error-400-token-package-mismatch.json")
    #expect(mismatch.error?.code == 400 && mismatch.error?.status == "INVALID_ARGUMENT")
    #expect(mismatch.reason == "purchaseTokenDoesNotMatchPackageName")
    #expect(mismatch.error?.errors?.first?.domain == "androidpublisher")
    let gone: GoogleAPIErrorResponse = try GoogleVectors.decode(
      "aporat-subscriptionsv2/api-error-410-unknown-reason.json")
    #expect(gone.error?.code == 410 && gone.error?.message == "Token is gone." && gone.reason == "somethingNew")
    #expect(gone.error?.status == nil)
  }
}

/// The `purchases.subscriptionsv2` resource (`SubscriptionPurchaseV2`) as Google writes it:
/// RFC 3339 times with milliseconds, money as units (a string) and nanos, proto3 JSON (fields
/// with default values left out), `testPurchase` present only for a test purchase.
struct GoogleSubscriptionResource: Encodable {
  struct Empty: Encodable {}

  struct Money: Encodable {
    var currencyCode: String
    var units: String
    var nanos: Int?

    init(micros: Int64, currency: String) {
      currencyCode = currency
      units = String(micros / 1_000_000)
      let nanos = Int(micros % 1_000_000) * 1_000
      self.nanos = nanos == 0 ? nil : nanos
    }
  }

  struct PriceChangeDetails: Encodable {
    var newPrice: Money
    var priceChangeMode: String
    var priceChangeState: String
    var expectedNewPriceChargeTime: String?
  }

  struct PriceStepUpConsentDetails: Encodable {
    var state: String
    var consentDeadlineTime: String
    var newPrice: Money
  }

  struct AutoRenewingPlan: Encodable {
    var autoRenewEnabled: Bool?
    var recurringPrice: Money
    var priceChangeDetails: PriceChangeDetails?
    var priceStepUpConsentDetails: PriceStepUpConsentDetails?
  }

  struct OfferDetails: Encodable {
    var basePlanId: String
    var offerId: String?
    var offerTags: [String]?
  }

  struct OfferPhase: Encodable {
    var freeTrial: Empty?
    var introductoryPrice: Empty?
    var basePrice: Empty?
  }

  struct ProductReference: Encodable { var productId: String }

  struct LineItem: Encodable {
    var productId: String
    var expiryTime: String
    var autoRenewingPlan: AutoRenewingPlan
    var offerDetails: OfferDetails
    var offerPhase: OfferPhase
    var latestSuccessfulOrderId: String
    var deferredItemReplacement: ProductReference?
  }

  struct PausedStateContext: Encodable { var autoResumeTime: String }

  struct UserInitiatedCancellation: Encodable {
    var cancelSurveyResult: CancelSurveyResult?
    var cancelTime: String
  }

  struct CancelSurveyResult: Encodable { var reason: String }

  struct CanceledStateContext: Encodable {
    var userInitiatedCancellation: UserInitiatedCancellation?
    var systemInitiatedCancellation: Empty?
    var developerInitiatedCancellation: Empty?
    var replacementCancellation: Empty?
  }

  struct ExternalAccountIdentifiers: Encodable {
    var obfuscatedExternalAccountId: String?
    var obfuscatedExternalProfileId: String?
  }

  var kind = "androidpublisher#subscriptionPurchaseV2"
  var regionCode: String
  var lineItems: [LineItem]
  var startTime: String
  var subscriptionState: String
  var latestOrderId: String
  var linkedPurchaseToken: String?
  var pausedStateContext: PausedStateContext?
  var canceledStateContext: CanceledStateContext?
  var testPurchase: Empty?
  var acknowledgementState: String
  var externalAccountIdentifiers: ExternalAccountIdentifiers?

  init(_ subscription: GoogleSubscriptionPurchase, config: StoreSimulator.Google) {
    let time = GoogleTimeText.rfc3339
    let currency = config.currency
    let price = subscription.priceChange
    let renewing =
      subscription.autoRenewEnabled && [.active, .inGracePeriod, .onHold, .paused].contains(subscription.state)
    let plan = AutoRenewingPlan(
      autoRenewEnabled: renewing ? true : nil,
      recurringPrice: Money(micros: subscription.recurringPriceMicros, currency: currency),
      priceChangeDetails: price.map {
        PriceChangeDetails(
          newPrice: Money(micros: $0.newPriceMicros, currency: currency), priceChangeMode: $0.mode,
          priceChangeState: $0.state, expectedNewPriceChargeTime: time($0.expectedChargeTimeMs))
      },
      priceStepUpConsentDetails: price.flatMap { change in
        change.consentDeadlineMs.map {
          PriceStepUpConsentDetails(
            state: change.state == "OUTSTANDING" ? "CONSENT_STATE_PENDING" : "CONSENT_STATE_CONFIRMED",
            consentDeadlineTime: time($0), newPrice: Money(micros: change.newPriceMicros, currency: currency))
        }
      })
    let phase = subscription.offerPhase
    let item = LineItem(
      productId: subscription.productId, expiryTime: time(subscription.expiryTimeMs), autoRenewingPlan: plan,
      offerDetails: OfferDetails(
        basePlanId: subscription.basePlanId, offerId: subscription.offerId,
        offerTags: subscription.offerTags.isEmpty ? nil : subscription.offerTags),
      offerPhase: OfferPhase(
        freeTrial: phase == .freeTrial ? Empty() : nil, introductoryPrice: phase == .introductoryPrice ? Empty() : nil,
        basePrice: phase == .basePrice ? Empty() : nil),
      latestSuccessfulOrderId: subscription.latestOrderId,
      deferredItemReplacement: subscription.deferredReplacementProductId.map(ProductReference.init(productId:)))
    regionCode = config.regionCode
    lineItems = [item]
    startTime = time(subscription.startTimeMs)
    subscriptionState = subscription.state.rawValue
    latestOrderId = subscription.latestOrderId
    linkedPurchaseToken = subscription.linkedPurchaseToken
    if subscription.state == .paused, let resume = subscription.autoResumeTimeMs {
      pausedStateContext = PausedStateContext(autoResumeTime: time(resume))
    }
    if let cancellation = subscription.cancellation {
      var context = CanceledStateContext()
      switch cancellation {
      case .user:
        context.userInitiatedCancellation = UserInitiatedCancellation(
          cancelSurveyResult: CancelSurveyResult(reason: "CANCEL_SURVEY_REASON_OTHERS"),
          cancelTime: time(subscription.cancelTimeMs ?? subscription.startTimeMs))
      case .system: context.systemInitiatedCancellation = Empty()
      case .developer: context.developerInitiatedCancellation = Empty()
      case .replacement: context.replacementCancellation = Empty()
      }
      canceledStateContext = context
    }
    testPurchase = subscription.testPurchase ? Empty() : nil
    acknowledgementState =
      subscription.acknowledged ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING"
    if subscription.obfuscatedExternalAccountId != nil || subscription.obfuscatedExternalProfileId != nil {
      externalAccountIdentifiers = ExternalAccountIdentifiers(
        obfuscatedExternalAccountId: subscription.obfuscatedExternalAccountId,
        obfuscatedExternalProfileId: subscription.obfuscatedExternalProfileId)
    }
  }
}

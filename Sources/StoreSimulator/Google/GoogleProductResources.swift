/// The one-time purchase resources: `purchases.productsv2` (`ProductPurchaseV2`) and the v1
/// `purchases.products` (`ProductPurchase`, integer codes and `…Millis` strings).
struct GoogleProductPurchaseV2Resource: Encodable {
  struct Empty: Encodable {}
  struct OfferDetails: Encodable {
    var offerTags: [String]?
    var purchaseOptionId: String
    var quantity: Int
    var refundableQuantity: Int
    var consumptionState: String
  }
  struct LineItem: Encodable {
    var productId: String
    var productOfferDetails: OfferDetails
  }
  struct PurchaseStateContext: Encodable { var purchaseState: String }
  struct TestPurchaseContext: Encodable { var fopType: String }

  var kind = "androidpublisher#productPurchaseV2"
  var productLineItem: [LineItem]
  var purchaseStateContext: PurchaseStateContext
  var testPurchaseContext: TestPurchaseContext?
  var orderId: String
  var obfuscatedExternalAccountId: String?
  var obfuscatedExternalProfileId: String?
  var regionCode: String
  var purchaseCompletionTime: String
  var acknowledgementState: String

  init(_ purchase: GoogleProductPurchase, config: StoreSimulator.Google) {
    let purchased = purchase.purchaseState == 0
    productLineItem = [
      LineItem(
        productId: purchase.productId,
        productOfferDetails: OfferDetails(
          offerTags: nil, purchaseOptionId: "buy", quantity: 1, refundableQuantity: purchased ? 1 : 0,
          consumptionState: purchase.consumed ? "CONSUMPTION_STATE_CONSUMED" : "CONSUMPTION_STATE_YET_TO_BE_CONSUMED"))
    ]
    purchaseStateContext = PurchaseStateContext(
      purchaseState: purchase.purchaseState == 0 ? "PURCHASED" : purchase.purchaseState == 2 ? "PENDING" : "CANCELLED")
    testPurchaseContext = purchase.testPurchase ? TestPurchaseContext(fopType: "TEST") : nil
    orderId = purchase.orderId
    obfuscatedExternalAccountId = purchase.obfuscatedExternalAccountId
    obfuscatedExternalProfileId = purchase.obfuscatedExternalProfileId
    regionCode = config.regionCode
    purchaseCompletionTime = GoogleTimeText.rfc3339(purchase.purchaseTimeMs)
    acknowledgementState =
      purchase.acknowledged ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING"
  }
}

struct GoogleProductPurchaseResource: Encodable {
  var kind = "androidpublisher#productPurchase"
  var purchaseTimeMillis: String
  var purchaseState: Int
  var consumptionState: Int
  var developerPayload = ""
  var orderId: String
  /// Present only for a test (0), promo (1) or rewarded (2) purchase.
  var purchaseType: Int?
  var acknowledgementState: Int
  var obfuscatedExternalAccountId: String?
  var obfuscatedExternalProfileId: String?
  var regionCode: String
  var quantity = 1
  var refundableQuantity: Int?

  init(_ purchase: GoogleProductPurchase, config: StoreSimulator.Google) {
    purchaseTimeMillis = String(purchase.purchaseTimeMs)
    purchaseState = purchase.purchaseState
    consumptionState = purchase.consumed ? 1 : 0
    orderId = purchase.orderId
    purchaseType = purchase.testPurchase ? 0 : nil
    acknowledgementState = purchase.acknowledged ? 1 : 0
    obfuscatedExternalAccountId = purchase.obfuscatedExternalAccountId
    obfuscatedExternalProfileId = purchase.obfuscatedExternalProfileId
    regionCode = config.regionCode
    refundableQuantity = purchase.purchaseState == 0 ? 1 : nil
  }
}

/// A page of `purchases.voidedpurchases.list`.
struct GoogleVoidedPurchasesPage: Encodable {
  struct Item: Encodable {
    var kind = "androidpublisher#voidedPurchase"
    var purchaseToken: String
    var purchaseTimeMillis: String
    var voidedTimeMillis: String
    var orderId: String
    var voidedSource: Int
    var voidedReason: Int
  }
  struct TokenPagination: Encodable { var nextPageToken: String }
  struct PageInfo: Encodable {
    var totalResults: Int
    var resultPerPage: Int
    var startIndex: Int
  }

  var pageInfo: PageInfo
  var tokenPagination: TokenPagination?
  var voidedPurchases: [Item]?

  init(_ items: [GoogleVoidedPurchase], total: Int, startIndex: Int, maxResults: Int, nextPageToken: String?) {
    pageInfo = PageInfo(totalResults: total, resultPerPage: maxResults, startIndex: startIndex)
    tokenPagination = nextPageToken.map(TokenPagination.init(nextPageToken:))
    let mapped = items.map {
      Item(
        purchaseToken: $0.purchaseToken, purchaseTimeMillis: String($0.purchaseTimeMs),
        voidedTimeMillis: String($0.voidedTimeMs), orderId: $0.orderId, voidedSource: $0.voidedSource,
        voidedReason: $0.voidedReason)
    }
    voidedPurchases = mapped.isEmpty ? nil : mapped
  }
}

import TollgateContract
import TollgateCore
import TollgateStorage

/// Checks on request fields; each returns the problem in words a caller can act on, or nil.
enum RequestValidation {
  static let maximumUserIdLength = UserIdLimits.maximumBytes

  static func userId(_ value: String) -> String? { userId(byteCount: value.utf8.count) }

  static func entitlement(_ value: String) -> String? { entitlement(byteCount: value.utf8.count) }

  /// The same checks on a field's length in bytes (the hot path has bytes, not a `String`).
  static func userId(byteCount: Int) -> String? { UserIdLimits.problem(byteCount: byteCount) }

  static func entitlement(byteCount: Int) -> String? { EntitlementNameLimits.problem(byteCount: byteCount) }

  struct Problem: Error {
    var message: String
  }

  /// The stored form of a SubmitPurchase request, or what is wrong with it.
  static func submission(_ request: Tollgate_V1_SubmitPurchaseRequest) -> Result<PurchaseSubmission, Problem> {
    if let problem = userId(request.userID) { return .failure(Problem(message: problem)) }
    func nonEmpty(_ value: String) -> String? { value.isEmpty ? nil : value }
    // Each field no longer than its store makes it (issue 25).
    if let problem = EvidenceLimits.problem(request) { return .failure(Problem(message: problem)) }
    var submission = PurchaseSubmission(
      userId: request.userID, store: .appStore, productId: nonEmpty(request.productID), appId: nonEmpty(request.appID))
    switch request.store {
    case .appStore:
      guard let receipt = nonEmpty(request.receipt) else {
        return .failure(
          Problem(message: "store APP_STORE needs receipt (transaction id, signed transaction or app receipt)"))
      }
      submission.receipt = receipt
    case .googlePlay:
      guard let token = nonEmpty(request.purchaseToken), submission.productId != nil else {
        return .failure(Problem(message: "store GOOGLE_PLAY needs purchase_token and product_id"))
      }
      submission.store = .googlePlay
      submission.purchaseToken = token
      switch (nonEmpty(request.googlePurchaseData), nonEmpty(request.googleSignature)) {
      case (let data?, let signature?):
        submission.googlePurchaseData = data
        submission.googleSignature = signature
      case (nil, nil): break
      default:
        return .failure(Problem(message: "google_purchase_data and google_signature go together: send both or neither"))
      }
    case .amazon:
      guard let receiptId = nonEmpty(request.receiptID), let amazonUserId = nonEmpty(request.amazonUserID) else {
        return .failure(Problem(message: "store AMAZON needs receipt_id and amazon_user_id"))
      }
      submission.store = .amazon
      submission.receiptId = receiptId
      submission.amazonUserId = amazonUserId
    case .promotional:
      return .failure(Problem(message: "promotional entitlements are granted by an operator, not submitted"))
    case .unspecified, .UNRECOGNIZED:
      return .failure(Problem(message: "store is required (APP_STORE, GOOGLE_PLAY or AMAZON)"))
    }
    return .success(submission)
  }
}

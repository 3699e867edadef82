import Foundation
import GooglePlay
import TollgateCore
import TollgateWorker

extension GooglePlayGateway {
  public func identify(_ submission: PurchaseSubmission) async throws(StoreFailure) -> ChainReference {
    guard let token = submission.purchaseToken?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else {
      throw .final("a Google Play purchase needs its purchase_token")
    }
    guard let app = app(packageName: submission.appId) else {
      throw .final(
        submission.appId.map { "package \($0) is not configured" }
          ?? "app_id (the package name) is required: several Google Play apps are configured")
    }
    // Google answers for the token with the package alone, so a token binds a purchase nobody owns.
    // Moving one bound to another user takes more: the token is no secret here (GetSubscription and
    // IsSubscriber show it as the store subscription id), so only the Play Billing data the buyer's
    // device got, signed by Google and checked with the app's licensing key, shows the claimant
    // holds the purchase now.
    var evidence = ClaimEvidence.vouched(
      signedAtMs: nil,
      notForTransfer: app.billingSignature == nil
        ? "a Google Play purchase moves to another user only with google_purchase_data and google_signature "
          + "checked against the app's licensingKey, and none is configured"
        : "submit google_purchase_data and google_signature as Play Billing handed them to the buyer's device")
    if let data = submission.googlePurchaseData, let signature = submission.googleSignature {
      try checkBillingSignature(data: data, signature: signature, token: token, submission: submission, app: app)
      if app.billingSignature != nil { evidence = .vouched() }
    }
    return ChainReference(
      store: .googlePlay, appId: app.packageName, lookupId: token, purchaseId: token, environment: nil,
      claimEvidence: evidence)
  }

  /// The Play Billing library's signature over `INAPP_PURCHASE_DATA`, checked as received, and
  /// the data's token, package and product matched with the submission: a cheap first refusal of
  /// forged or altered client data. Without a licensing key there is nothing to check it with;
  /// the purchase is still read from Google, which decides.
  private func checkBillingSignature(
    data: String, signature: String, token: String, submission: PurchaseSubmission, app: GooglePlayApp
  ) throws(StoreFailure) {
    guard let verifier = app.billingSignature else {
      logger.debug(
        "Play Billing purchase data submitted without a licensing key configured: not checked",
        metadata: ["app.id": "\(app.packageName)"])
      return
    }
    if case .failure(let failure) = verifier.verify(purchaseData: Array(data.utf8), signatureBase64: signature) {
      throw .final("\(failure): forged or altered purchase data")
    }
    struct PurchaseData: Decodable {
      var packageName: String?
      var productId: String?
      var purchaseToken: String?
    }
    guard let purchase = try? JSONDecoder().decode(PurchaseData.self, from: Data(data.utf8)) else {
      throw .final("google_purchase_data is signed but is not INAPP_PURCHASE_DATA JSON")
    }
    if purchase.purchaseToken != token {
      throw .final("google_purchase_data is for another purchase token than purchase_token")
    }
    if purchase.packageName != app.packageName {
      throw .final("google_purchase_data is for package \(purchase.packageName ?? "(none)"), not \(app.packageName)")
    }
    if let productId = submission.productId, let signed = purchase.productId, signed != productId {
      throw .final("google_purchase_data is for product \(signed), not \(productId)")
    }
  }
}

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
      let purchaseTimeMs = try checkBillingSignature(
        data: data, signature: signature, token: token, submission: submission, app: app)
      if app.billingSignature != nil {
        evidence = Self.billingEvidence(
          purchaseTimeMs: purchaseTimeMs, freshnessMs: app.settings.transferFreshnessMs, nowMs: nowMs())
      }
    }
    return ChainReference(
      store: .googlePlay, appId: app.packageName, lookupId: token, purchaseId: token, environment: nil,
      claimEvidence: evidence)
  }

  /// The Play Billing library's signature over `INAPP_PURCHASE_DATA`, checked as received, and
  /// the data's token, package and product matched with the submission: a cheap first refusal of
  /// forged or altered client data. Without a licensing key there is nothing to check it with;
  /// the purchase is still read from Google, which decides. Returns the signed `purchaseTime`.
  private func checkBillingSignature(
    data: String, signature: String, token: String, submission: PurchaseSubmission, app: GooglePlayApp
  ) throws(StoreFailure) -> Int64? {
    guard let verifier = app.billingSignature else {
      logger.debug(
        "Play Billing purchase data submitted without a licensing key configured: not checked",
        metadata: ["app.id": "\(app.packageName)"])
      return nil
    }
    if case .failure(let failure) = verifier.verify(purchaseData: Array(data.utf8), signatureBase64: signature) {
      throw .final("\(failure): forged or altered purchase data")
    }
    struct PurchaseData: Decodable {
      var packageName: String?
      var productId: String?
      var purchaseToken: String?
      var purchaseTime: Int64?
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
    return purchase.purchaseTime
  }

  /// Signed Play Billing data moves a purchase bound to another user only within the app's
  /// `transferFreshnessMs` (24 h, the App Store's window) of its `purchaseTime`. Google signs no
  /// time of its own into `INAPP_PURCHASE_DATA` (no signing date, unlike Apple's payloads), and a
  /// submission's arrival dates nothing (a copy is submitted whenever its holder likes): the
  /// purchase's own time is the only one a copy cannot change. For a subscription that is its
  /// first purchase, not a renewal.
  static func billingEvidence(purchaseTimeMs: Int64?, freshnessMs: Int64, nowMs: Int64) -> ClaimEvidence {
    .dated(
      purchaseTimeMs, freshnessMs: freshnessMs, nowMs: nowMs,
      undated: "google_purchase_data carries no purchaseTime, the only time Google signs into it"
    ) { age, window in
      "google_purchase_data is for a purchase made \(age) ago (its purchaseTime), more than the \(window) a "
        + "transfer accepts (transferFreshnessMs): Google signs no other time into Play Billing data, so an older "
        + "copy cannot be told from what the buyer's device holds now"
    }
  }

}

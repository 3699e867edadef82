import Foundation
import GooglePlay
import TollgateCore
import TollgateWorker

extension GooglePlayGateway {
  /// How far before a notification's event time the voided purchases list is read for its token.
  static let voidedLookbackMs: Int64 = 86_400_000

  /// The refunds and chargebacks Google lists for `token` since `sinceMs`
  /// (`purchases.voidedpurchases.list`), with their reasons: a notification (VOIDED_PURCHASE,
  /// SUBSCRIPTION_REVOKED) says that something was voided, only the list says whether it was a
  /// refund or a chargeback. Read when the notification is processed, so the one `refunded` or
  /// `revoked` event carries the right reason without waiting for the daily sweep. nil when the
  /// list cannot be read (the notification's own reading stands; the sweep corrects it).
  func listedRevocations(app: GooglePlayApp, token: String, sinceMs: Int64) async -> [ReportedRevocation]? {
    do throws(AndroidPublisherError) {
      let body = try await limiter.withPermit { () async throws(AndroidPublisherError) in
        try await app.api.voidedPurchases(packageName: app.packageName, startTimeMs: sinceMs)
      }
      let page: VoidedPurchasesListResponse
      do {
        page = try JSONDecoder().decode(VoidedPurchasesListResponse.self, from: body)
      } catch {
        throw AndroidPublisherError(code: .invalidResponse, message: "undecodable voided purchases", cause: error)
      }
      return (page.voidedPurchases ?? []).compactMap { voided in
        guard voided.purchaseToken == token, let at = voided.voidedTimeMillis else { return nil }
        return ReportedRevocation(
          orderId: voided.orderId, revokedAtMs: at,
          reason: voided.typedVoidedReason == .chargeback ? .revoked : .refunded)
      }
    } catch {
      logger.warning(
        "the voided purchases list could not be read; the notification's reading stands until the sweep",
        metadata: ["purchase.token": "\(Store.googlePlay.loggable(token))", "error": "\(error.classified)"])
      return nil
    }
  }
}

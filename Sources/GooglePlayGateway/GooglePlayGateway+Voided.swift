import Foundation
import GooglePlay
import TollgateCore
import TollgateWorker

extension GooglePlayGateway {
  /// How far before a notification's event time the voided purchases list is read for its token.
  static let voidedLookbackMs: Int64 = 86_400_000
  /// At most this many pages of voided purchases (1,000 each) are read for one notification; a
  /// refund past them waits for the daily sweep, which reads them all.
  static let maximumVoidedPagesPerNotification = 5

  /// The refunds and chargebacks Google lists for `token` (`purchases.voidedpurchases.list`), with
  /// their reasons. A VOIDED_PURCHASE or SUBSCRIPTION_REVOKED notification only says that Google
  /// may have voided something: a Pub/Sub push's token proves who delivered it, not what its body
  /// says (one captured `Authorization` header carries any body for an hour), so what ends access
  /// is what this list answers when asked, never the notification's own content. Empty when Google
  /// lists nothing for the token: nothing is revoked.
  ///
  /// - Parameter notifiedAtMs: the notification's `eventTimeMillis`, only to place the window read
  ///   (clamped to the last 30 days, all Google keeps; a forged time can only make the read miss).
  /// - Throws: the classified failure when the list cannot be read: the item is retried, and
  ///   nothing changes meanwhile.
  func confirmedRevocations(app: GooglePlayApp, token: String, notifiedAtMs: Int64?) async throws(StoreFailure)
    -> [ReportedRevocation]
  {
    let now = nowMs()
    let sinceMs = max(min(notifiedAtMs ?? now, now) - Self.voidedLookbackMs, now - 30 * 86_400_000)
    var revocations: [ReportedRevocation] = []
    var pageToken: String?
    var pages = 0
    do throws(AndroidPublisherError) {
      repeat {
        let body = try await limiter.withPermit(call: "voidedpurchases.list") {
          [pageToken] () async throws(AndroidPublisherError) in
          try await app.api.voidedPurchases(packageName: app.packageName, startTimeMs: sinceMs, pageToken: pageToken)
        }
        let page: VoidedPurchasesListResponse
        do {
          page = try JSONDecoder().decode(VoidedPurchasesListResponse.self, from: body)
        } catch {
          throw AndroidPublisherError(code: .invalidResponse, message: "undecodable voided purchases", cause: error)
        }
        for voided in page.voidedPurchases ?? [] {
          guard voided.purchaseToken == token, let at = voided.voidedTimeMillis else { continue }
          revocations.append(
            ReportedRevocation(
              orderId: voided.orderId, revokedAtMs: at,
              reason: voided.typedVoidedReason == .chargeback ? .revoked : .refunded))
        }
        pageToken = page.tokenPagination?.nextPageToken
        pages += 1
      } while pageToken != nil && pages < Self.maximumVoidedPagesPerNotification
    } catch {
      throw error.classified
    }
    return revocations
  }

  /// Logs, sampled, a notification that said a purchase was voided when Google lists nothing for
  /// it: a forgery, or Google's list not caught up yet (the daily sweep reads it again).
  func logUnconfirmedVoid(app: GooglePlayApp, token: String, reason: String) {
    let sample = unconfirmedVoids.admit(app.packageName, nowMs: nowMs())
    guard sample.log else { return }
    logger.warning(
      "a notification says a purchase was voided, Google's voided purchases list does not: nothing revoked",
      metadata: [
        "app.id": "\(app.packageName)",
        "purchase.token":
          "\(Store.googlePlay.loggable(token).unicodeScalars.map { $0.escaped(asASCII: true) }.joined())",
        "notification.reason": "\(reason)", "log.skipped_before": "\(sample.skippedBefore)",
      ])
  }
}

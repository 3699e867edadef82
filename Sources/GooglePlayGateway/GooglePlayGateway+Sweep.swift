import Foundation
import GooglePlay
import TollgateCore
import TollgateWorker

extension GooglePlayGateway {
  /// At most this many pages of voided purchases per app and sweep (1,000 each).
  static let maximumVoidedPages = 100

  /// `purchases.voidedpurchases.list` (subscriptions included) of every app since `sinceMs`, as
  /// chains to read again with their refunds and chargebacks. Google keeps 30 days of them.
  public func sweep(sinceMs: Int64) async throws(StoreFailure) -> [ChainReference] {
    let earliest = nowMs() - 30 * 86_400_000
    var references: [ChainReference] = []
    for app in apps {
      var byToken: [String: [ReportedRevocation]] = [:]
      var pageToken: String?
      var pages = 0
      repeat {
        let page: VoidedPurchasesListResponse
        do throws(AndroidPublisherError) {
          let body = try await limiter.withPermit(call: "voidedpurchases.list") {
            [pageToken] () async throws(AndroidPublisherError) in
            try await app.api.voidedPurchases(
              packageName: app.packageName, startTimeMs: max(sinceMs, earliest), pageToken: pageToken)
          }
          do {
            page = try JSONDecoder().decode(VoidedPurchasesListResponse.self, from: body)
          } catch {
            throw AndroidPublisherError(code: .invalidResponse, message: "undecodable voided purchases", cause: error)
          }
        } catch {
          throw error.classified
        }
        for voided in page.voidedPurchases ?? [] {
          guard let token = voided.purchaseToken, let at = voided.voidedTimeMillis else { continue }
          byToken[token, default: []].append(
            ReportedRevocation(
              orderId: voided.orderId, revokedAtMs: at,
              reason: voided.typedVoidedReason == .chargeback ? .revoked : .refunded))
        }
        pageToken = page.tokenPagination?.nextPageToken
        pages += 1
      } while pageToken != nil && pages < Self.maximumVoidedPages
      if pageToken != nil {
        logger.warning(
          "more voided purchases than one sweep reads; the rest wait for the next sweep",
          metadata: ["app.id": "\(app.packageName)", "pages": "\(pages)"])
      }
      references += byToken.keys.sorted().map { token in
        ChainReference(
          store: .googlePlay, appId: app.packageName, lookupId: token, purchaseId: token, environment: nil,
          revocations: byToken[token] ?? [])
      }
    }
    return references
  }
}

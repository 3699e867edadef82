import Foundation
import Hummingbird
import NIOCore

/// Legacy `verifyReceipt`. The `receipt-data` the simulator accepts is the opaque token its
/// purchases hand out (base64 of `{"sim":"apple",…}`), not a PKCS#7 receipt.
extension StoreSimulator {
  private struct Token: Decodable {
    var sim: String
    var bundleId: String
    var originalTransactionId: String
    var environment: String
    /// When the receipt was made (ms, as a string); older tokens have none: now.
    var createdMs: String?
  }

  func verifyReceipt(_ request: Request, endpointEnvironment: String) async -> StoreAnswer {
    var request = request
    guard let buffer = try? await request.collectBody(upTo: 4 << 20),
      let body = (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView))) as? [String: Any]
    else { return status(21000) }
    guard let receipt = body["receipt-data"] as? String, let raw = Data(base64Encoded: receipt),
      let token = try? JSONDecoder().decode(Token.self, from: raw), token.sim == "apple"
    else { return status(21002) }
    if token.environment != endpointEnvironment {
      return status(token.environment == "Sandbox" ? 21007 : 21008, environment: endpointEnvironment)
    }
    guard let app = config.apple.app(token.bundleId) else { return status(21003, environment: endpointEnvironment) }
    if let secret = app.sharedSecret, body["password"] as? String != secret {
      return status(21004, environment: endpointEnvironment)
    }
    let excludeOld = (body["exclude-old-transactions"] as? Bool) ?? false
    let answer: [String: Any]? = state.withLock { state in
      guard let subscription = state.apple.subscriptions[token.originalTransactionId] else { return nil }
      let chain = state.apple.chain(subscription)
      let latest = excludeOld ? Array(chain.suffix(1)) : chain
      let now = state.core.nowMs
      let created = token.createdMs.flatMap { Int64($0) } ?? now
      let receipt: [String: Any] = [
        "receipt_type": token.environment == "Sandbox" ? "ProductionSandbox" : "Production",
        "bundle_id": app.bundleId, "application_version": app.bundleVersion, "app_item_id": app.appAppleId,
        "receipt_creation_date_ms": String(created), "receipt_creation_date": Self.gmt(created),
        "request_date_ms": String(now), "request_date": Self.gmt(now),
        "original_purchase_date_ms": String(subscription.originalPurchaseMs),
        "in_app": chain.map(Self.legacy),
      ]
      var renewal: [String: Any] = [
        "auto_renew_product_id": subscription.autoRenewProductId, "product_id": subscription.productId,
        "original_transaction_id": subscription.originalTransactionId,
        "auto_renew_status": subscription.autoRenewOn ? "1" : "0",
      ]
      if subscription.state == .expired, let intent = subscription.expirationIntent {
        renewal["expiration_intent"] = String(intent)
      }
      if subscription.inBillingTrouble || subscription.state == .expired {
        renewal["is_in_billing_retry_period"] = subscription.inBillingTrouble ? "1" : "0"
      }
      if subscription.state == .gracePeriod, let grace = subscription.gracePeriodExpiresMs {
        renewal["grace_period_expires_date_ms"] = String(grace)
        renewal["grace_period_expires_date"] = Self.gmt(grace)
      }
      return [
        "status": 0, "environment": token.environment, "receipt": receipt,
        "latest_receipt_info": latest.reversed().map(Self.legacy),
        // Apple gives renewal info for auto-renewable subscriptions only.
        "pending_renewal_info": subscription.type == .autoRenewable ? [renewal] : [],
        "latest_receipt": receipt,
      ]
    }
    guard var answer else { return status(21003, environment: endpointEnvironment) }
    answer["latest_receipt"] = receipt
    return json(answer)
  }

  private func status(_ code: Int, environment: String? = nil) -> StoreAnswer {
    var body: [String: Any] = ["status": code]
    if let environment { body["environment"] = environment }
    return json(body)
  }

  private func json(_ object: [String: Any]) -> StoreAnswer {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return StoreAnswer(headers: [.contentType: "application/json"], body: Array(data))
  }

  /// One `in_app` / `latest_receipt_info` entry, Apple's way: everything a string.
  private static func legacy(_ transaction: AppleTransaction) -> [String: Any] {
    var entry: [String: Any] = [
      "quantity": "1", "product_id": transaction.productId, "transaction_id": transaction.transactionId,
      "original_transaction_id": transaction.originalTransactionId,
      "purchase_date_ms": String(transaction.purchaseDate), "purchase_date": gmt(transaction.purchaseDate),
      "original_purchase_date_ms": String(transaction.originalPurchaseDate),
      "original_purchase_date": gmt(transaction.originalPurchaseDate),
      "web_order_line_item_id": transaction.webOrderLineItemId ?? "",
      "is_trial_period": transaction.offerDiscountType == "FREE_TRIAL" ? "true" : "false",
      "is_in_intro_offer_period": transaction.offerDiscountType == "PAY_AS_YOU_GO" ? "true" : "false",
      "in_app_ownership_type": transaction.inAppOwnershipType,
      "subscription_group_identifier": transaction.subscriptionGroupIdentifier ?? "",
    ]
    if let expires = transaction.expiresDate {
      entry["expires_date_ms"] = String(expires)
      entry["expires_date"] = gmt(expires)
    }
    if let revoked = transaction.revocationDate {
      entry["cancellation_date_ms"] = String(revoked)
      entry["cancellation_date"] = gmt(revoked)
      entry["cancellation_reason"] = String(transaction.revocationReason ?? 0)
    }
    if transaction.isUpgraded == true { entry["is_upgraded"] = "true" }
    return entry
  }

  /// "2017-07-24 08:13:24 Etc/GMT", Apple's legacy date format.
  static func gmt(_ ms: Int64) -> String {
    let t = CivilTime(ms: ms)
    let pad = CivilTime.pad
    return
      "\(t.year)-\(pad(t.month, 2))-\(pad(t.day, 2)) \(pad(t.hour, 2)):\(pad(t.minute, 2)):\(pad(t.second, 2)) Etc/GMT"
  }
}

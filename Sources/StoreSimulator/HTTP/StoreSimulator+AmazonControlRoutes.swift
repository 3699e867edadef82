import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The Amazon part of the control API, under `/sim/amazon`: purchases, scenarios on a receipt,
/// the notification URL and the SNS certificate. Every route calls the Swift API.
extension StoreSimulator {
  private struct AmazonActionBody: Decodable {
    var enabled: Bool?
    var sku: String?
    var immediate: Bool?
    var cancelReason: Int?
    var url: String?
    var appPackageName: String?
  }

  func addAmazonControlRoutes(to router: Router<SimRequestContext>) {
    router.post("/sim/amazon/purchases") { request, _ in
      await self.amazonControl { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        try await self.amazonPurchase(HTTPAnswer.decode(AmazonPurchaseRequest.self, from: request))
      }
    }
    router.get("/sim/amazon/receipts/:receiptId") { _, context in
      await self.amazonControl { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        try self.amazonReceipt(Self.amazonReceiptParameter(context))
      }
    }
    router.post("/sim/amazon/receipts/:receiptId/:action") { request, context in
      let receiptId = Self.amazonReceiptParameter(context)
      let action = context.parameters.get("action") ?? ""
      return await self.amazonControl { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        let body = try await HTTPAnswer.decode(AmazonActionBody.self, from: request)
        return try await self.performAmazon(action, on: receiptId, body)
      }
    }
    router.post("/sim/amazon/notification-url") { request, _ in
      await self.amazonControl { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        let body = try await HTTPAnswer.decode(AmazonActionBody.self, from: request)
        try await self.amazonSetNotificationURL(body.url, appPackageName: body.appPackageName)
        return ["endpoint": try self.amazonNotificationEndpoint(body.appPackageName)]
      }
    }
    router.get("/sim/amazon/sns-certificate") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "application/x-x509-ca-cert"],
        body: .init(byteBuffer: ByteBuffer(string: self.amazonSigningCertificatePEM)))
    }
  }

  /// The receipt id path parameter, percent-decoded (ids hold `:`, `=` and `#`).
  private static func amazonReceiptParameter(_ context: SimRequestContext) -> String {
    let raw = context.parameters.get("receiptId") ?? ""
    return raw.removingPercentEncoding ?? raw
  }

  private func performAmazon(_ action: String, on receiptId: String, _ body: AmazonActionBody)
    async throws(StoreSimulatorError) -> any Encodable & Sendable
  {
    switch action {
    case "cancel": return try await amazonCancel(receiptId, cancelReason: body.cancelReason ?? 1)
    case "refund": return try await amazonRefund(receiptId)
    case "auto-renew":
      guard let enabled = body.enabled else { throw .invalid("auto-renew needs {\"enabled\": true|false}") }
      return try await amazonSetAutoRenew(receiptId, enabled: enabled)
    case "fail-renewals": return try await amazonFailRenewals(receiptId)
    case "recover-payment": return try await amazonRecoverPayment(receiptId)
    case "change-tier":
      guard let sku = body.sku else { throw .invalid("change-tier needs {\"sku\": …, \"immediate\": true|false}") }
      return try await amazonChangeTier(receiptId, to: sku, immediate: body.immediate ?? true)
    default:
      throw .notFound(
        "unknown action \(action); expected cancel, refund, auto-renew, fail-renewals, recover-payment, change-tier")
    }
  }

  private func amazonControl(_ body: () async throws(StoreSimulatorError) -> any Encodable & Sendable) async
    -> Response
  {
    do {
      return HTTPAnswer.json(try await body())
    } catch {
      return HTTPAnswer.error(error)
    }
  }
}

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The Google part of the control API, under `/sim/google`: purchases, scenarios on a purchase
/// token, a test notification and the service-account key. Every route calls the Swift API.
extension StoreSimulator {
  private struct GoogleActionBody: Decodable {
    var duration: DurationValue?
    var productId: String?
    var replacementMode: String?
    var voidedReason: Int?
    var voidedSource: Int?
    var revoke: Bool?
    var newPriceMicros: Int64?
    var notice: DurationValue?
    var packageName: String?
  }

  func addGoogleControlRoutes(to router: Router<SimRequestContext>) {
    router.post("/sim/google/purchases") { request, _ in
      await self.googleControl { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        try await self.googlePurchase(HTTPAnswer.decode(GooglePurchaseRequest.self, from: request))
      }
    }
    router.get("/sim/google/purchases/:token") { _, context in
      await self.googleControl { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        try self.googlePurchaseSnapshot(context.parameters.get("token") ?? "")
      }
    }
    router.post("/sim/google/purchases/:token/:action") { request, context in
      let token = context.parameters.get("token") ?? ""
      let action = context.parameters.get("action") ?? ""
      return await self.googleControl { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        let body = try await HTTPAnswer.decode(GoogleActionBody.self, from: request)
        return try await self.performGoogle(action, on: token, body)
      }
    }
    router.post("/sim/google/test-notification") { request, _ in
      await self.googleControl { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        let body = try await HTTPAnswer.decode(GoogleActionBody.self, from: request)
        try await self.googleSendTestNotification(packageName: body.packageName)
        return self.notifications.filter { $0.store == GoogleStore.name }.suffix(1)
      }
    }
    router.get("/sim/google/licensing-key") { _, _ in
      HTTPAnswer.json(["licensingKey": self.googleLicensingKeyBase64])
    }
    router.get("/sim/google/service-account") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(string: self.googleServiceAccountKeyJSON)))
    }
  }

  private func performGoogle(_ action: String, on token: String, _ body: GoogleActionBody)
    async throws(StoreSimulatorError) -> any Encodable & Sendable
  {
    switch action {
    case "acknowledge": return try await googleAcknowledge(token)
    case "cancel": return try await googleCancel(token)
    case "restart": return try await googleRestart(token)
    case "fail-renewals": return try await googleFailRenewals(token)
    case "recover-payment": return try await googleRecoverPayment(token)
    case "pause":
      guard let duration = body.duration else { throw .invalid("pause needs {\"duration\": \"30d\"}") }
      return try await googlePause(token, durationMs: duration.ms)
    case "resume": return try await googleResume(token)
    case "change-product", "upgrade", "downgrade":
      guard let productId = body.productId else { throw .invalid("\(action) needs {\"productId\": …}") }
      let mode =
        body.replacementMode
        ?? (action == "downgrade" ? "DEFERRED" : action == "upgrade" ? "CHARGE_PRORATED_PRICE" : nil)
      return try await googleChangeProduct(token, to: productId, replacementMode: mode)
    case "refund":
      return try await googleRefund(
        token, voidedReason: body.voidedReason ?? 0, voidedSource: body.voidedSource ?? 0,
        revoke: body.revoke ?? true)
    case "revoke": return try await googleRefund(token, voidedReason: body.voidedReason ?? 0, voidedSource: 1)
    case "chargeback": return try await googleRefund(token, voidedReason: 7, voidedSource: 2)
    case "change-price":
      guard let price = body.newPriceMicros else { throw .invalid("change-price needs {\"newPriceMicros\": …}") }
      return try await googleChangePrice(token, newPriceMicros: price, noticeMs: body.notice?.ms ?? 0)
    case "confirm-price-change": return try await googleConfirmPriceChange(token)
    default:
      throw .notFound(
        "unknown action \(action); expected acknowledge, cancel, restart, fail-renewals, recover-payment, pause, "
          + "resume, upgrade, downgrade, change-product, refund, revoke, chargeback, change-price, confirm-price-change"
      )
    }
  }

  private func googleControl(_ body: () async throws(StoreSimulatorError) -> any Encodable & Sendable) async
    -> Response
  {
    do {
      return HTTPAnswer.json(try await body())
    } catch {
      return HTTPAnswer.error(error)
    }
  }
}

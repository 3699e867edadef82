import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The control API under `/sim`: the clock, Apple scenarios, faults, the request log and the
/// notification log.
/// Every route calls the same methods as the Swift API.
extension StoreSimulator {
  private struct AdvanceBody: Decodable {
    var by: DurationValue?
  }

  private struct ActionBody: Decodable {
    var immediately: Bool?
    var enabled: Bool?
    var transactionId: String?
    var reason: Int?
    var productId: String?
    var appAccountToken: String?
  }

  /// `nowMs`: the virtual clock (it stands still between advances); `followedNowMs`: the now
  /// every follower reads (`FollowedClock`).
  private struct Clock: Encodable {
    var nowMs: Int64
    var followedNowMs: Int64
  }

  func addControlRoutes(to router: Router<SimRequestContext>) {
    router.get("/sim/clock") { _, _ in
      self.virtualNow.polled()
      let reading = self.virtualNow.reading
      return HTTPAnswer.json(Clock(nowMs: reading.nowMs, followedNowMs: reading.followedNowMs))
    }
    router.post("/sim/clock/advance") { request, _ in
      await self.answer { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        let query = request.uri.queryParameters.get("by")
        let body = try await HTTPAnswer.decode(AdvanceBody.self, from: request)
        guard let ms = query.flatMap(SimDuration.milliseconds) ?? body.by?.ms else {
          throw StoreSimulatorError.invalid("give the duration as {\"by\": \"31d\"} (or ms) or ?by=31d")
        }
        return try await self.advance(byMs: ms)
      }
    }
    router.post("/sim/apple/purchases") { request, _ in
      await self.answer { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        try await self.purchase(HTTPAnswer.decode(ApplePurchaseRequest.self, from: request))
      }
    }
    router.get("/sim/apple/subscriptions/:id") { _, context in
      await self.answer { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        try self.subscription(context.parameters.get("id") ?? "")
      }
    }
    router.post("/sim/apple/subscriptions/:id/:action") { request, context in
      let id = context.parameters.get("id") ?? ""
      let action = context.parameters.get("action") ?? ""
      return await self.answer { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        let body = try await HTTPAnswer.decode(ActionBody.self, from: request)
        return try await self.perform(action, on: id, body)
      }
    }
    router.get("/sim/apple/root-certificate") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "application/pkix-cert"],
        body: .init(byteBuffer: ByteBuffer(bytes: self.rootCertificate.der)))
    }
    router.get("/sim/faults") { _, _ in HTTPAnswer.json(self.activeFaults) }
    router.get("/sim/faults/applied") { _, _ in HTTPAnswer.json(self.appliedFaults) }
    router.post("/sim/faults") { request, _ in
      await self.answer { () async throws(StoreSimulatorError) -> any Encodable & Sendable in
        let rule = try await HTTPAnswer.decode(FaultRule.self, from: request)
        try self.addFault(rule)
        return self.activeFaults
      }
    }
    router.delete("/sim/faults") { _, _ in
      self.clearFaults()
      return HTTPAnswer.json(self.activeFaults)
    }
    router.get("/sim/requests") { _, _ in HTTPAnswer.json(self.storeRequests) }
    router.delete("/sim/requests") { _, _ in
      self.clearStoreRequests()
      return HTTPAnswer.json(self.storeRequests)
    }
    router.get("/sim/notifications") { _, _ in HTTPAnswer.json(self.notifications) }
    router.delete("/sim/notifications") { _, _ in
      self.dispatcher.clearLog()
      return HTTPAnswer.json(self.notifications)
    }
  }

  private func perform(_ action: String, on id: String, _ body: ActionBody) async throws(StoreSimulatorError)
    -> any Encodable & Sendable
  {
    switch action {
    case "fail-renewals": return try await failRenewals(id)
    case "recover-billing": return try await recoverBilling(id, immediately: body.immediately ?? false)
    case "auto-renew":
      guard let enabled = body.enabled else { throw .invalid("auto-renew needs {\"enabled\": true|false}") }
      return try await setAutoRenew(id, enabled: enabled)
    case "refund": return try await refund(id, transactionId: body.transactionId, reason: body.reason ?? 0)
    case "change-product", "upgrade", "downgrade", "crossgrade":
      guard let productId = body.productId else { throw .invalid("\(action) needs {\"productId\": …}") }
      return try await changeProduct(id, to: productId)
    case "family-share": return try await familyShare(id, appAccountToken: body.appAccountToken)
    case "restore": return try restore(id)
    default:
      throw .notFound(
        "unknown action \(action); expected fail-renewals, recover-billing, auto-renew, refund, change-product, "
          + "family-share, restore")
    }
  }

  private func answer(_ body: () async throws(StoreSimulatorError) -> any Encodable & Sendable) async -> Response {
    do {
      return HTTPAnswer.json(try await body())
    } catch {
      return HTTPAnswer.error(error)
    }
  }
}

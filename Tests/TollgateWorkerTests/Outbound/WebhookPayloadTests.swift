import Foundation
import Testing
import TollgateCore

@testable import TollgateWorker

/// Issue 24, item 11: the version-2 body, built from the stored event alone.
@Suite("Webhook payload version 2")
struct WebhookPayloadTests {
  func body(_ event: WorkerEvent, id: Int64 = 7, eventId: String = "0b0f5c1e-8f7a-4d0c-a1e9-5f2d9c3b7a61") throws
    -> [String: Any]
  {
    let bytes = try WebhookPayload.body(StoredEvent(id: id, eventId: eventId, event: event))
    return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
  }

  @Test("a Google test purchase reads license_tester; keys the event lacks are left out; the same bytes every time")
  func googleTestPurchase() throws {
    let event = WorkerEvent(
      userId: "u", kind: "purchased", store: .googlePlay, purchaseId: "tok", productId: "monthly", state: .active,
      atMs: 5,
      details: EventDetails(environment: .sandbox, transactionId: "GPA.1", periodType: .normal, expiresAtMs: 99))
    let payload = try body(event)
    #expect(payload["apiVersion"] as? Int == 2)
    #expect(payload["id"] as? String == "0b0f5c1e-8f7a-4d0c-a1e9-5f2d9c3b7a61")
    #expect(payload["sequence"] as? Int == 7)
    #expect(payload["environment"] as? String == "license_tester")
    #expect(payload["storeSubscriptionId"] as? String == "tok" && payload["originalTransactionId"] as? String == "tok")
    #expect(payload["transactionId"] as? String == "GPA.1" && payload["periodType"] as? String == "normal")
    for absent in ["priceMilli", "currency", "storefront", "productChange", "grant", "reason", "detail"] {
      #expect(payload[absent] == nil, "\(absent)")
    }
    let stored = StoredEvent(id: 7, eventId: "x", event: event)
    #expect(try WebhookPayload.body(stored) == WebhookPayload.body(stored))
  }

  @Test("sandbox elsewhere, production everywhere; a product change and a lifetime entitlement")
  func productChange() throws {
    #expect(WebhookPayload.environment(.sandbox, store: .appStore) == "sandbox")
    #expect(WebhookPayload.environment(.sandbox, store: .amazon) == "sandbox")
    #expect(WebhookPayload.environment(.production, store: .googlePlay) == "production")
    let event = WorkerEvent(
      userId: "u", kind: "product_changed", store: .appStore, purchaseId: "otx", productId: "premium", state: .active,
      atMs: 5,
      details: EventDetails(
        environment: .production, priceMilli: 9_990, currency: "USD", storefront: "USA",
        productChange: EventProductChange(
          direction: .upgrade, fromProductId: "basic", toProductId: "premium", effectiveAtMs: 5),
        entitlements: [
          AffectedEntitlement(
            entitlement: "premium", active: true, state: .active, expiresAtMs: .max, accessEndsAtMs: .max,
            source: "app_store:otx")
        ]))
    let payload = try body(event)
    let change = try #require(payload["productChange"] as? [String: Any])
    #expect(change["direction"] as? String == "upgrade" && change["effectiveAtMs"] as? Int == 5)
    #expect(change["fromStoreSubscriptionId"] == nil)
    #expect(payload["priceMilli"] as? Int == 9_990 && payload["currency"] as? String == "USD")
    let entitlement = try #require((payload["entitlements"] as? [[String: Any]])?.first)
    #expect(entitlement["active"] as? Bool == true && entitlement["expiresAtMs"] == nil, "never expires")
  }
}

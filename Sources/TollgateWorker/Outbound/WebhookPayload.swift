import Foundation
import TollgateCore

/// The JSON body of a webhook delivery, version 2 (docs/webhooks.md). Built from the stored event
/// alone, so every redelivery sends the same bytes; keys are sorted and a field the event does not
/// have is left out.
struct WebhookPayload: Encodable, Sendable, Hashable {
  static let apiVersion = 2

  var apiVersion: Int
  /// The event's UUID: the same on every redelivery, never reused (not even after a fresh
  /// database). Also sent as `Tollgate-Event-Id`.
  var id: String
  /// The delivery order (ascending per database; a fresh database starts again).
  var sequence: Int64
  var kind: String
  var atMs: Int64
  var userId: String?
  var store: String
  /// production, sandbox, or license_tester (a Google Play test purchase).
  var environment: String?
  var storeSubscriptionId: String
  /// The chain's id as the store names it (Apple originalTransactionId, Google purchaseToken,
  /// Amazon receiptId); a grant's id for granted / grant_revoked.
  var originalTransactionId: String
  var transactionId: String?
  var productId: String?
  var state: String?
  var periodType: String?
  var expiresAtMs: Int64?
  var priceMilli: Int64?
  var currency: String?
  var storefront: String?
  var reason: String?
  var productChange: ProductChangeBody?
  var grant: EventGrant?
  var entitlements: [Entitlement]?
  var detail: String?

  struct ProductChangeBody: Encodable, Sendable, Hashable {
    var direction: String?
    var fromProductId: String
    var toProductId: String
    var effectiveAtMs: Int64
    var fromStoreSubscriptionId: String?
  }

  struct Entitlement: Encodable, Sendable, Hashable {
    var entitlement: String
    var active: Bool
    var state: String?
    var expiresAtMs: Int64?
    var accessEndsAtMs: Int64?
    var source: String?
  }

  init(_ stored: StoredEvent) {
    let event = stored.event
    let details = event.details
    apiVersion = Self.apiVersion
    id = stored.eventId
    sequence = stored.id
    kind = event.kind
    atMs = event.atMs
    userId = event.userId
    store = event.store.rawValue
    environment = details.environment.map { Self.environment($0, store: event.store) }
    storeSubscriptionId = event.purchaseId
    originalTransactionId = event.purchaseId
    transactionId = details.transactionId
    productId = event.productId
    state = event.state?.rawValue
    periodType = details.periodType?.rawValue
    expiresAtMs = details.expiresAtMs
    priceMilli = details.priceMilli
    currency = details.currency
    storefront = details.storefront
    reason = details.reason
    productChange = details.productChange.map {
      ProductChangeBody(
        direction: $0.direction?.rawValue, fromProductId: $0.fromProductId, toProductId: $0.toProductId,
        effectiveAtMs: $0.effectiveAtMs, fromStoreSubscriptionId: $0.fromPurchaseId)
    }
    grant = details.grant
    entitlements = details.entitlements.map { list in
      list.map {
        Entitlement(
          entitlement: $0.entitlement, active: $0.active, state: $0.state?.rawValue,
          expiresAtMs: $0.expiresAtMs == .max ? nil : $0.expiresAtMs,
          accessEndsAtMs: $0.accessEndsAtMs == .max ? nil : $0.accessEndsAtMs, source: $0.source)
      }
    }
    detail = event.detail
  }

  /// A Google Play test purchase is a license tester's; every store's other test purchases are
  /// sandbox.
  static func environment(_ environment: StoreEnvironment, store: Store) -> String {
    switch (environment, store) {
    case (.production, _): "production"
    case (.sandbox, .googlePlay): "license_tester"
    case (.sandbox, _): "sandbox"
    }
  }

  /// The body's bytes.
  static func body(_ stored: StoredEvent) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return Array(try encoder.encode(WebhookPayload(stored)))
  }
}

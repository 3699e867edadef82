import Foundation
import Testing
import TollgateCore

/// Issue 24 item 2: a purchase the store gives no expiry for grants for as long as the catalog says
/// (a calendar duration, or `lifetime`), and nothing without a duration.
@Suite("Product terms")
struct ProductTermTests {
  /// 2026-01-31T10:00:00Z
  static let jan31: Int64 = 1_769_853_600_000
  static let day: Int64 = 86_400_000

  @Test("ISO 8601 durations parse; anything else is refused")
  func parsing() {
    #expect(ProductTerm(parsing: "lifetime") == .lifetime)
    #expect(ProductTerm(parsing: "P1M") == .duration(CalendarDuration(months: 1)))
    #expect(ProductTerm(parsing: "P1Y6M") == .duration(CalendarDuration(months: 18)))
    #expect(ProductTerm(parsing: "P2W3D") == .duration(CalendarDuration(days: 17)))
    #expect(ProductTerm(parsing: "PT12H") == .duration(CalendarDuration(milliseconds: 12 * 3_600_000)))
    #expect(ProductTerm(parsing: "P1DT30M") == .duration(CalendarDuration(days: 1, milliseconds: 1_800_000)))
    for bad in [
      "", "P", "PT", "1M", "P1", "P-1D", "P0D", "P1.5D", "P1H", "PT1D", "P1MT", "forever", "P9999999Y", "P１D",
    ] {
      #expect(ProductTerm(parsing: bad) == nil, "\(bad)")
    }
  }

  @Test("months are calendar months in UTC, clamped to the month's last day")
  func calendarArithmetic() {
    let oneMonth = CalendarDuration(months: 1)
    // 31 January + 1 month = 28 February 2026 (not a leap year), same time of day.
    #expect(oneMonth.adding(toMs: Self.jan31) == Self.jan31 + 28 * Self.day)
    // 31 January 2028 + 1 month = 29 February (a leap year).
    let jan31of2028: Int64 = 1_832_925_600_000
    #expect(oneMonth.adding(toMs: jan31of2028) == jan31of2028 + 29 * Self.day)
    // A year from 29 February 2028 is 28 February 2029.
    let feb29of2028 = jan31of2028 + 29 * Self.day
    #expect(CalendarDuration(months: 12).adding(toMs: feb29of2028) == feb29of2028 + 365 * Self.day)
    #expect(CalendarDuration(days: 30).adding(toMs: Self.jan31) == Self.jan31 + 30 * Self.day)
    #expect(CalendarDuration(milliseconds: 3_600_000).adding(toMs: Self.jan31) == Self.jan31 + 3_600_000)
    // Before 1970 too.
    let dec31of1969: Int64 = -Self.day
    #expect(oneMonth.adding(toMs: dec31of1969) == dec31of1969 + 31 * Self.day)
    #expect(ProductTerm.lifetime.end(fromMs: Self.jan31) == Int64.max)
  }

  @Test("a product's duration is read from the config file and written back; a bad one names the rule")
  func decoding() throws {
    let json = """
      {"products": [
        {"productId": "season", "entitlements": ["pro"], "duration": "P1M"},
        {"productId": "forever", "entitlements": ["pro"], "duration": "lifetime"},
        {"productId": "monthly", "entitlements": ["pro"]}
      ]}
      """
    let catalog = try JSONDecoder().decode(ProductCatalog.self, from: Data(json.utf8))
    #expect(catalog.term(forProduct: "season", store: .appStore) == .duration(CalendarDuration(months: 1)))
    #expect(catalog.term(forProduct: "forever", store: .googlePlay) == .lifetime)
    #expect(catalog.term(forProduct: "monthly", store: .amazon) == nil)
    let roundTrip = try JSONDecoder().decode(ProductCatalog.self, from: JSONEncoder().encode(catalog))
    #expect(roundTrip == catalog)
    let bad = #"{"products": [{"productId": "x", "entitlements": ["pro"], "duration": "30 days"}]}"#
    do {
      _ = try JSONDecoder().decode(ProductCatalog.self, from: Data(bad.utf8))
      Issue.record("a bad duration decoded")
    } catch let DecodingError.dataCorrupted(context) {
      #expect(context.debugDescription.contains("ISO 8601"))
    }
  }

  static func oneTime(_ productId: String, store: Store = .appStore, at purchaseMs: Int64 = jan31)
    -> SubscriptionHistory
  {
    SubscriptionHistory(
      store: store, purchaseId: "p-\(productId)",
      transactions: [
        StoreTransaction(
          transactionId: "t-\(productId)", productId: productId, purchaseDateMs: purchaseMs, expiresDateMs: Int64.max)
      ])
  }

  static let catalog = ProductCatalog(
    entitlements: [EntitlementDefinition(id: "pro")],
    products: [
      ProductConfig(productId: "season", entitlements: ["pro"], duration: .duration(CalendarDuration(months: 1))),
      ProductConfig(productId: "forever", entitlements: ["pro"], duration: .lifetime),
      ProductConfig(productId: "unset", entitlements: ["pro"]),
    ])

  @Test("a non-renewing purchase grants for its catalog duration, then ends")
  func durationEnds() {
    let history = Self.oneTime("season")
    let during = Self.catalog.evaluate(history, at: Self.jan31 + 10 * Self.day)
    #expect(during.state == .active)
    #expect(during.expiresAtMs == Self.jan31 + 28 * Self.day)
    #expect(during.accessEndsAtMs == Self.jan31 + 28 * Self.day)
    #expect(!during.willRenew)
    let after = Self.catalog.evaluate(history, at: Self.jan31 + 29 * Self.day)
    #expect(after.state == .expired)
    #expect(after.reason == .lapsed)
    let records = EntitlementMapping.records(
      userId: "u", histories: [history], grants: [], config: Self.catalog, nowMs: Self.jan31 + 29 * Self.day)
    #expect(records.map(\.entitlement) == ["pro"])
    #expect(
      records.allSatisfy {
        !$0.state.atQueryTime(accessEndsAtMs: $0.accessEndsAtMs, nowMs: Self.jan31 + 29 * Self.day).active
      })
  }

  @Test("lifetime grants for good; without a duration nothing is granted, and the reason says why")
  func lifetimeAndUnset() {
    let years = Self.jan31 + 3_000 * Self.day
    let forever = Self.catalog.evaluate(Self.oneTime("forever"), at: years)
    #expect(forever.state == .active)
    #expect(forever.accessEndsAtMs == Int64.max)
    let unset = Self.catalog.evaluate(Self.oneTime("unset"), at: Self.jan31 + 1)
    #expect(unset.state == .expired)
    #expect(unset.reason == .durationNotConfigured)
    #expect(unset.productId == "unset")
    #expect(!unset.isEntitled)
  }

  @Test("a renewing subscription keeps the store's expiry whatever the catalog says")
  func subscriptionsIgnoreIt() {
    var history = Self.oneTime("season")
    history.transactions[0].expiresDateMs = Self.jan31 + 7 * Self.day
    let evaluation = Self.catalog.evaluate(history, at: Self.jan31 + Self.day)
    #expect(evaluation.expiresAtMs == Self.jan31 + 7 * Self.day)
  }

  @Test("a refund still ends a lifetime purchase")
  func refundEndsLifetime() {
    var history = Self.oneTime("forever")
    history.transactions[0].revocationDateMs = Self.jan31 + Self.day
    history.transactions[0].revocationReason = .refunded
    let evaluation = Self.catalog.evaluate(history, at: Self.jan31 + 2 * Self.day)
    #expect(evaluation.state == .revoked)
    #expect(evaluation.reason == .refunded)
  }
}

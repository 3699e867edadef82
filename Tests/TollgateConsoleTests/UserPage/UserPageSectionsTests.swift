import Foundation
import Logging
import Testing
import TollgateCore
import TollgateSupport
import TollgateTesting
import TollgateWorker

@testable import TollgateConsole

/// The user page's sections over the support desk's `userOverview` on a fake storage with an App
/// Store purchase, a grant, and two webhook endpoints in different states; read back through an
/// XML parse.
@Suite("UserPageSections: entitlements and why, recent events, webhook deliveries per endpoint")
struct UserPageSectionsTests {
  static let paris = TimeZone(identifier: "Europe/Paris")!
  static let day: Int64 = 86_400_000
  static let start: Int64 = 1_795_000_000_000
  static let now = start + 40 * day
  static let hooked = "https://hooks.example.com/tollgate?token=s3cret"
  static let other = "https://other.example.com/hook"

  static let catalog = ProductCatalog(
    apps: [], entitlements: [EntitlementDefinition(id: "premium"), EntitlementDefinition(id: "basic")],
    products: [ProductConfig(productId: "premium.monthly", entitlements: ["premium"])])

  /// Alice's App Store purchase (two paid months, each payload signed a minute in), its two events,
  /// a grant of basic with a note, and the endpoints: `hooked` took the purchase and fails on the
  /// renewal, `other` parked the purchase.
  static func desk() async throws -> (SupportDesk, FakeWorkerStorage) {
    let storage = FakeWorkerStorage()
    await storage.saveCatalog(catalog, nowMs: start)
    for endpoint in [hooked, other] { _ = await storage.webhookCursor(endpoint: endpoint, nowMs: start) }
    let transactions = [
      StoreTransaction(
        transactionId: "2000000001", productId: "premium.monthly", purchaseDateMs: start,
        expiresDateMs: start + 30 * day),
      StoreTransaction(
        transactionId: "2000000002", productId: "premium.monthly", purchaseDateMs: start + 30 * day,
        expiresDateMs: start + 60 * day),
    ]
    let history = SubscriptionHistory(
      store: .appStore, purchaseId: "2000000001", transactions: transactions, asOfMs: now)
    let payloads = transactions.map {
      VerificationEvidence.Payload(
        kind: "transaction", id: $0.transactionId, sha256: "0123456789abcdef0123",
        signedAtMs: $0.purchaseDateMs + 60_000)
    }
    let chain = StoredSubscription(
      store: .appStore, purchaseId: "2000000001", appId: "com.example.app", userId: "alice", history: history,
      evidence: VerificationEvidence(
        source: "app_store_server_api", environment: .production, payloads: payloads, verifiedAtMs: now),
      state: .active, reason: "current_period", productId: "premium.monthly", willRenew: true,
      expiresAtMs: start + 60 * day, accessEndsAtMs: start + 60 * day, appAccountToken: nil, verifiedAtMs: now,
      nextCheckAtMs: nil)
    let events = ["purchased": start, "renewed": start + 30 * day].sorted { $0.value < $1.value }.map {
      WorkerEvent(
        userId: "alice", kind: $0.key, store: .appStore, purchaseId: "2000000001", productId: "premium.monthly",
        state: .active, atMs: $0.value)
    }
    _ = try await storage.apply(
      SubscriptionChange(
        subscription: chain,
        transactions: transactions.map {
          TransactionRow($0, environment: .production, payloadSHA256: nil, signedAtMs: nil)
        },
        events: events, completes: nil, alsoRecompute: nil, reason: "test", nowMs: now),
      recompute: { userId, _, _ in
        [
          EntitlementRecord.sample(
            userId: userId, source: "app_store:2000000001", productId: "premium.monthly",
            expiresAtMs: start + 60 * day, verifiedAtMs: now, store: .appStore)
        ]
      })
    let desk = SupportDesk(storage: storage, nowMs: { now }, logger: Logger(label: "test.console"))
    _ = try await desk.grant(
      userId: "alice", entitlement: "basic", untilMs: now + 10 * day, note: "outage <credit> & thanks", actor: "ops")

    let stored = await storage.webhookDeliveries(userId: "alice", limit: 10).map(\.event)
    let (purchased, renewed) = (stored[2].id, stored[1].id)
    try await storage.advanceWebhookCursor(endpoint: hooked, to: purchased, nowMs: now, lease: nil)
    let retry = WebhookRetryLimit(maxAttempts: 5, maxAgeMs: day)
    for at in [now, now + 1_000] {
      _ = try await storage.recordWebhookFailure(
        endpoint: hooked, eventId: renewed, error: "HTTP 502", limit: retry, nowMs: at, lease: nil)
    }
    _ = try await storage.recordWebhookFailure(
      endpoint: other, eventId: purchased, error: "HTTP 500", limit: WebhookRetryLimit(maxAttempts: 1, maxAgeMs: day),
      nowMs: now + 2_000, lease: nil)
    return (desk, storage)
  }

  static func parsed(_ html: String) throws -> TimelineMarkup {
    let markup = TimelineMarkup(html)
    if let error = markup.error { throw error }
    return markup
  }

  @Test("the overview gathers the timeline, an explanation per entitlement, and the events newest first")
  func overview() async throws {
    let (desk, _) = try await Self.desk()
    let overview = try await desk.userOverview(userId: "alice")
    #expect(overview.evaluatedAtMs == Self.now)
    #expect(overview.timeline?.entries.contains { $0.kind == .period } == true)
    #expect(overview.entitlements.map(\.entitlement) == ["premium", "basic"], "the catalog's, in its order")
    #expect(overview.entitlements.map(\.active) == [true, true])
    #expect(overview.deliveries.map(\.event.event.kind) == ["granted", "renewed", "purchased"])
    await #expect(throws: SupportError.self) { try await desk.userOverview(userId: "nobody") }
  }

  @Test("entitlements: what decides, the rule, the evidence by payload and signed date in Paris time, the note")
  func entitlements() async throws {
    let (desk, _) = try await Self.desk()
    let overview = try await desk.userOverview(userId: "alice")
    let markup = try Self.parsed(UserPageSections.entitlements(overview, timeZone: Self.paris))
    let articles = markup.all("article")
    #expect(articles.map { $0["data-entitlement"] } == ["premium", "basic"])
    let premium = articles[0]
    #expect(premium["class"] == "entitlement active")
    let row = try #require(premium.all("tr").first { $0["data-source"] == "app_store:2000000001" })
    #expect(row["class"] == "decides")
    let cells = row.children.map(\.text)
    #expect(cells[4] == "current_period", "the rule")
    #expect(cells[5] == "2027-01-17 12:06:40 +01:00", "access until, in Paris time")
    let evidence = row.children[7].all("li").map(\.text)
    #expect(
      evidence == [
        "transaction 2000000001, signed 2026-11-18 12:07:40 +01:00, sha256 0123456789abcdef…",
        "transaction 2000000002, signed 2026-12-18 12:07:40 +01:00, sha256 0123456789abcdef…",
      ])
    let times = row.children[7].all("time").map { $0["datetime"] }
    #expect(times.first == "2026-11-18T11:07:40Z", "the instant in UTC for machines")
    let basic = articles[1]
    #expect(basic.all("td").map(\.text).contains { $0.contains("note: outage <credit> & thanks") })
    #expect(basic.all("code").first?.text == "basic")
  }

  @Test(
    "events newest first with their ids; deliveries per endpoint: delivered, failing with attempts, parked with its status"
  )
  func eventsAndDeliveries() async throws {
    let (desk, storage) = try await Self.desk()
    let overview = try await desk.userOverview(userId: "alice")
    let events = try Self.parsed(UserPageSections.events(overview, timeZone: Self.paris))
    let rows = events.all("tr").filter { $0["data-event"] != nil }
    #expect(rows.map { $0["data-kind"] } == ["granted", "renewed", "purchased"])
    let stored = await storage.webhookDeliveries(userId: "alice", limit: 10).map(\.event)
    #expect(rows.map { $0.children.last?.text } == stored.map(\.eventId), "each event's UUID")
    #expect(rows[0].children[5].text.contains("basic, by ops, outage <credit> & thanks"))

    let html = UserPageSections.deliveries(overview, timeZone: Self.paris)
    #expect(!html.contains("s3cret"), "an endpoint's query (a token) is not shown")
    let deliveries = try Self.parsed(html)
    let summary = try #require(deliveries.all("table").first { $0["class"] == "delivery-summary" })
    let counts = summary.all("tr").dropFirst().map { $0.children.map(\.text) }
    #expect(
      counts == [
        ["https://hooks.example.com/tollgate", "1", "1", "1"],
        ["https://other.example.com/hook", "0", "2", "1"],
      ], "delivered, pending, failed per endpoint")
    let table = try #require(deliveries.all("table").first { $0["class"] == "delivery-events" })
    let states = table.all("tr").filter { $0["data-event"] != nil }.map { row in
      row.children.filter { $0.name == "td" }.map { $0["data-state"] ?? "" }
    }
    #expect(states == [["pending", "pending"], ["failing", "pending"], ["delivered", "parked"]])
    let cells = table.all("td")
    #expect(cells.contains { $0.text.hasPrefix("failing: 2 failed attempts, the first 2026-12-28 12:06:40 +01:00") })
    #expect(cells.contains { $0.text.contains("failed: parked") && $0.text.contains("last status HTTP 500") })
  }
}

import Foundation
import Logging
import Testing
import TollgateContract
import TollgateCore
import TollgateIndex
import TollgateSQLite
import TollgateStorage
import TollgateTesting

@Suite("Access levels in the answers")
struct AccessLevelAnswerTests {
  /// Saves `catalog` as the worker does at its start (the catalog row, as JSON).
  static func save(_ catalog: ProductCatalog, at path: String) throws {
    try save(json: String(decoding: try JSONEncoder().encode(catalog), as: UTF8.self), at: path)
  }

  static func save(json: String, at path: String) throws {
    let db = try Connection(path: path, options: Connection.Options(create: false))
    try db.execute(
      """
      INSERT INTO catalog (id, catalog_json, saved_at_ms) VALUES (1, ?, 1)
      ON CONFLICT(id) DO UPDATE SET catalog_json = excluded.catalog_json
      """, [.text(json)])
  }

  static let records: [EntitlementRecord] = [
    .sample(userId: "paid", expiresAtMs: 2_000_000),
    .sample(userId: "retry", state: .billingRetry, expiresAtMs: 500_000),
    .sample(userId: "lapsed", expiresAtMs: 900_000),
  ]

  @Test("without a saved catalog: the default levels, and none for an unknown user")
  func defaults() async throws {
    let f = try await EntitlementsResponderTests.Fixture(records: Self.records)
    defer { f.dir.remove() }
    #expect(f.isSubscriber("paid").accessLevel == "full")
    #expect(f.isSubscriber("retry").accessLevel == "none")
    #expect(f.isSubscriber("lapsed").accessLevel == "none")
    #expect(f.isSubscriber("nobody").accessLevel == "")
    #expect(f.isSubscriber("paid", "other").accessLevel == "")
  }

  @Test("the worker's catalog reaches IsSubscriber (both paths) and GetSubscription, and a new one replaces it")
  func savedCatalog() async throws {
    let f = try await EntitlementsResponderTests.Fixture(records: Self.records)
    defer { f.dir.remove() }
    let path = f.dir.file("db.sqlite")
    try Self.save(
      ProductCatalog(accessLevels: AccessLevelPolicy(levels: [.billingRetry: "read_only", .expired: "archive"])),
      at: path)
    try await f.follower.poll()

    let retry = f.isSubscriber("retry")
    #expect(!retry.active)
    #expect(retry.state == .billingRetry)
    #expect(retry.accessLevel == "read_only")
    // An active record whose access has ended reads as expired, with expired's level.
    let lapsed = f.isSubscriber("lapsed")
    #expect(lapsed.state == .expired)
    #expect(lapsed.accessLevel == "archive")
    #expect(f.isSubscriber("paid").accessLevel == "full")
    let hot = hotPathAnswers(f.service, [("retry", "premium"), ("lapsed", "premium"), ("paid", "premium"), ("x", "y")])
    #expect(hot.map(\.accessLevel) == ["read_only", "archive", "full", ""])
    #expect(
      hot == [f.isSubscriber("retry"), f.isSubscriber("lapsed"), f.isSubscriber("paid"), f.isSubscriber("x", "y")])

    var request = Tollgate_V1_GetSubscriptionRequest()
    request.userID = "retry"
    #expect(f.service.getSubscription(request).entitlements.map(\.accessLevel) == ["read_only"])

    // A worker started with another catalog: the next poll answers with its levels.
    try Self.save(ProductCatalog(), at: path)
    try await f.follower.poll()
    #expect(f.isSubscriber("retry").accessLevel == "none")
    #expect(f.service.getSubscription(request).entitlements.map(\.accessLevel) == ["none"])
  }

  @Test("levels a newer worker wrote that this service cannot read keep the previous ones, and the feed goes on")
  func unreadableLevels() async throws {
    let f = try await EntitlementsResponderTests.Fixture(records: [])
    defer { f.dir.remove() }
    let path = f.dir.file("db.sqlite")
    try Self.save(ProductCatalog(accessLevels: AccessLevelPolicy(levels: [.billingRetry: "read_only"])), at: path)
    try await f.follower.poll()
    try Self.save(json: #"{"accessLevels": {"suspended": "none", "billing_retry": "none"}}"#, at: path)
    let storage = f.storage
    try await storage.replaceEntitlements(
      userId: "retry", with: [.sample(userId: "retry", state: .billingRetry, expiresAtMs: 500_000)], reason: "test",
      nowMs: 2)
    try await f.follower.poll()
    let retry = f.isSubscriber("retry")
    #expect(retry.state == .billingRetry, "the feed was applied")
    #expect(retry.accessLevel == "read_only")
  }

  @Test("a snapshot load reads the saved catalog's levels before the first answer")
  func atLoad() async throws {
    let f = try await EntitlementsResponderTests.Fixture(records: Self.records)
    defer { f.dir.remove() }
    try Self.save(
      ProductCatalog(accessLevels: AccessLevelPolicy(levels: [.billingRetry: "read_only"])), at: f.storage.path)
    #expect(try await f.storage.savedAccessLevels() == AccessLevelPolicy(levels: [.billingRetry: "read_only"]))
    let index = EntitlementIndex()
    let follower = ChangeFeedFollower(
      storage: f.storage, index: index, nowMs: f.clock.function, logger: Logger(label: "test"))
    try await follower.loadSnapshot()
    #expect(index.answer(userId: "retry", entitlement: "premium", nowMs: 1_000_000).accessLevel == "read_only")
    #expect(index.accessLevels == AccessLevelPolicy(levels: [.billingRetry: "read_only"]))
  }
}

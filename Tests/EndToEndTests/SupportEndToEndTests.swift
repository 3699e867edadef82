import Foundation
import Logging
import StoreSimulator
import Testing
import TollgateClient
import TollgateDemo
import TollgatePostgres
import TollgateStorageFactory
import TollgateSupport
import TollgateTesting

/// Issue 28's support API as a support engineer meets it: `tollgate serve` as a process (its
/// admin side built by `ServeAdmin`) beside a real worker and the three stores simulated over
/// HTTP, called through the fast port with `TollgateClient`'s admin calls by an admin caller.
@Suite("Support and admin calls end to end: serve's fast port, a real worker, the stores over HTTP", .serialized)
struct SupportEndToEndTests {
  static let day: Int64 = 86_400_000

  @Test("SQLite: lookups by every store's ids, timeline, explain, grants refused and made, erase and re-claim")
  func sqlite() async throws {
    try await Self.scenario(database: nil)
  }

  @Test("PostgreSQL: the same, from a replica on the server database")
  func postgres() async throws {
    try await Self.scenario(database: .postgres(try await TestPostgres.freshDatabase()))
  }

  @Test("a replica that cannot reach its database at start answers the admin calls UNAVAILABLE, then serves them")
  func adminStorageLate() async throws {
    let database = try await TestPostgres.freshDatabase()
    #expect(
      try await ChildProcess.runDetached(["seed", "--database", database.description, "--users", "1"]).status == 0)
    guard case .unixSocket(let socket) = database.endpoint else { throw CancellationError() }
    // The same database through a socket directory that is empty until the test links the socket in.
    let dir = try TemporaryDirectory(prefix: "admin-late")
    defer { dir.remove() }
    var late = database
    late.endpoint = .unixSocket(path: dir.file(String(socket.split(separator: "/").last ?? "")))
    let serve = try ChildProcess(["serve", "--listen", "127.0.0.1:0", "--database", late.description])
    defer {
      serve.terminate()
      _ = serve.finish()
    }
    let line = try #require(await serve.waitForLine(containing: "listening on"))
    let address = try #require(line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") })
    let client = TollgateClient(
      host: "127.0.0.1", port: try #require(Int(address.split(separator: ":")[1].trimmingCharacters(in: [","]))))
    #expect(await clientErrorCode { _ = try await client.lookUp(identifier: "2000001") } == .unavailable)
    try FileManager.default.createSymbolicLink(
      atPath: dir.file(String(socket.split(separator: "/").last ?? "")), withDestinationPath: socket)
    let served = await eventually(timeout: .seconds(20)) {
      (try? await client.lookUp(identifier: "2000001").matches.isEmpty) == true
    }
    #expect(served != nil, "the admin side opened its storage once the database answered")
    await client.close()
  }

  static func scenario(database: StorageLocation?) async throws {
    let dir = try TemporaryDirectory(prefix: "support-e2e")
    defer { dir.remove() }
    try await LocalStack.run(directory: dir.path, database: database, logger: Logger(label: "support.e2e")) { stack in
      let apple = try await stack.buy()
      #expect(try await stack.submit(apple.signedTransaction, userId: "alice").status == .verified)
      let google = try await stack.googleBuy()
      #expect(try await stack.googleSubmit(google, userId: "bob").status == .verified)
      let amazon = try await stack.amazonBuy()
      #expect(
        try await stack.amazonSubmit(receiptId: amazon.receiptId, amazonUserId: amazon.userId, userId: "carol").status
          == .verified)

      let serve = try await SupportServe.start(beside: stack, in: dir)
      let support = serve.client("support")
      let app = serve.client("app")
      func stop() async {
        await support.close()
        await app.close()
        serve.stop()
      }
      do {
        try await lookups(support, apple: apple, google: google, amazon: amazon)
        try await timelineAndExplain(support, stack: stack, apple: apple, google: google)
        try await grants(support, app: app, stack: stack)
        try await reverify(support, stack: stack)
        try await erase(support, app: app, stack: stack)
      } catch {
        await stop()
        throw error
      }
      await stop()
    }
  }

  /// Each store's identifiers find the right user; an App Store order id is asked of Apple.
  static func lookups(
    _ support: TollgateClient, apple: ApplePurchaseResult, google: GooglePurchaseResult, amazon: AmazonPurchaseResult
  ) async throws {
    func users(_ identifier: String, _ kind: Tollgate_V1_IdentifierKind = .unspecified) async throws -> [String] {
      try await support.lookUp(identifier: identifier, kind: kind).matches.map(\.userID)
    }
    #expect(try await users(apple.transactionId, .appStoreTransactionID) == ["alice"])
    #expect(try await users(apple.originalTransactionId, .appStoreOriginalTransactionID) == ["alice"])
    #expect(try await users(apple.originalTransactionId) == ["alice"])
    let order = try await support.lookUp(identifier: apple.orderId, kind: .appStoreOrderID)
    #expect(order.matches.map(\.userID) == ["alice"], "\(order)")
    #expect(order.matches.first?.known == true)
    #expect(order.matches.first?.transactionID == apple.transactionId)
    #expect(try await users(apple.orderId) == ["alice"], "an order id's shape asks Apple without a kind")
    #expect(try await users(google.purchaseToken, .googlePlayPurchaseToken) == ["bob"])
    #expect(try await users(google.orderId, .googlePlayOrderID) == ["bob"])
    #expect(try await users(google.orderId) == ["bob"])
    #expect(try await users(amazon.receiptId, .amazonReceiptID) == ["carol"])
    #expect(try await users(amazon.userId, .amazonUserID) == ["carol"])
    #expect(try await users("2999999999", .appStoreTransactionID) == [])
    let none = try await support.lookUp(identifier: "ZZZZ99999", kind: .appStoreOrderID)
    #expect(none.matches.isEmpty, "an order Apple does not know")
    #expect(await clientErrorCode { _ = try await support.lookUp(identifier: "") } == .invalidArgument)
  }

  /// A renewal's Google order id finds the chain; after a refund the timeline shows it, signed.
  static func timelineAndExplain(
    _ support: TollgateClient, stack: LocalStack, apple: ApplePurchaseResult, google: GooglePurchaseResult
  ) async throws {
    _ = try await stack.sim.advance(byMs: 31 * day)
    let renewed = await eventually(timeout: .seconds(15)) {
      (try? await support.lookUp(identifier: google.orderId + "..0", kind: .googlePlayOrderID).matches.map(\.userID))
        == ["bob", "bob"]
    }
    #expect(renewed != nil, "a renewal's order id (..0) finds bob's chain: the first order and the renewal")

    try await stack.sim.refund(apple.originalTransactionId)
    _ = try await stack.until("alice") { !$0.active }
    let refunded = await eventually(timeout: .seconds(10)) {
      (try? await support.timeline(userId: "alice").entries.contains { $0.kind == "refunded" }) == true
    }
    #expect(refunded != nil)
    let timeline = try await support.timeline(userId: "alice")
    let refund = try #require(timeline.entries.first { $0.kind == "refunded" })
    #expect(ISO8601Text.ms(refund.signedAt) != nil, "signed_at: \(refund)")
    #expect(ISO8601Text.ms(refund.at) != nil)
    #expect(timeline.entries.first?.kind == "period")
    #expect(timeline.entries.last?.kind == "now")
    let json = try timeline.jsonString()
    #expect(json.contains("\"kind\":\"refunded\""), "\(json)")
    #expect(json.contains("\"signedAt\":\""))

    let explained = try await support.explain(userId: "alice", entitlement: "premium")
    #expect(!explained.active)
    #expect(ISO8601Text.ms(explained.evaluatedAt) != nil)
    #expect(explained.sources.allSatisfy { ISO8601Text.ms($0.verifiedAt) != nil })
    #expect(await clientErrorCode { _ = try await support.timeline(userId: "nobody-at-all") } == .notFound)
  }

  /// Grants refuse what the issue lists; a good one is active on this replica at once, and its
  /// event names the caller and the person behind it; a caller without admin is refused.
  static func grants(_ support: TollgateClient, app: TollgateClient, stack: LocalStack) async throws {
    let later = ISO8601Text.text(ms: stack.nowMs() + 30 * day)
    func refusal(_ userId: String, _ entitlement: String, _ until: String) async -> TollgateClientError.Code? {
      await clientErrorCode { _ = try await support.grant(userId: userId, entitlement: entitlement, until: until) }
    }
    #expect(await refusal("dave", "platinum", later) == .invalidArgument, "an entitlement the catalog does not name")
    #expect(await refusal("dave", "premium", ISO8601Text.text(ms: stack.nowMs() - 60_000)) == .invalidArgument)
    #expect(await refusal("", "premium", later) == .invalidArgument)
    #expect(await refusal(String(repeating: "d", count: 257), "premium", later) == .invalidArgument)
    #expect(
      await clientErrorCode { _ = try await app.grant(userId: "dave", entitlement: "premium", until: later) }
        == .permissionDenied)

    let granted = try await support.grant(
      userId: "dave", entitlement: "premium", until: later, note: "goodwill", requestedBy: "jane")
    #expect(granted.entitlements.first { $0.entitlement == "premium" }?.active == true, "\(granted)")
    #expect(try await app.isSubscriber(userId: "dave", entitlement: "premium").active, "active at once on this replica")
    let events = try await support.timeline(userId: "dave").entries.filter { $0.kind == "granted" }
    #expect(events.map(\.detail) == ["by support for jane: goodwill"])
    let revoked = try await support.revoke(userId: "dave", entitlement: "premium", requestedBy: "jane")
    #expect(revoked.revoked == 1)
    #expect(!(try await app.isSubscriber(userId: "dave", entitlement: "premium").active))
    #expect(
      await clientErrorCode { _ = try await support.revoke(userId: "dave", entitlement: "premium") } == .notFound)
  }

  /// Whether, within 10 s, the simulator sent a notification since `notificationsBefore` and the
  /// worker has no inbox item pending or in process (its `/health`).
  static func settled(_ stack: LocalStack, notificationsBefore: Int) async -> Bool {
    let port = await stack.workerAdminPort
    let done = await eventually(timeout: .seconds(10)) {
      guard stack.sim.notifications.count > notificationsBefore,
        let health = try? await httpRequest("GET", port: port, path: "/health"),
        let json = try? JSONSerialization.jsonObject(with: Data(health.body.utf8)) as? [String: Any],
        let inbox = json["inbox"] as? [String: Int]
      else { return false }
      return (inbox["pending"] ?? 0) == 0 && (inbox["processing"] ?? 0) == 0
    }
    return done != nil
  }

  /// Reverify makes the worker read the user's purchase from the store again now.
  static func reverify(_ support: TollgateClient, stack: LocalStack) async throws {
    stack.sim.clearStoreRequests()
    #expect(try await support.reverify(userId: "carol").subscriptions == 1)
    let read = await eventually(timeout: .seconds(10)) {
      stack.sim.storeRequests.contains { $0.target == "amazon.rvs" }
    }
    #expect(read != nil, "the worker asked Amazon's RVS again: \(stack.sim.storeRequests.map(\.target))")
    #expect(await clientErrorCode { _ = try await support.reverify(userId: "nobody-at-all") } == .notFound)
  }

  /// An erase leaves the user nothing and their purchase bound to nobody; a bare id cannot bind
  /// it again, a fresh payload the store signed can.
  static func erase(_ support: TollgateClient, app: TollgateClient, stack: LocalStack) async throws {
    let sent = stack.sim.notifications.count
    let purchase = try await stack.buy()
    #expect(try await stack.submit(purchase.signedTransaction, userId: "frank").status == .verified)
    // The purchase's own notification is applied before the erase, not after it.
    #expect(await settled(stack, notificationsBefore: sent), "the worker applied the purchase's notification")
    #expect(try await app.isSubscriber(userId: "frank", entitlement: "premium").active)
    let dry = try await support.eraseUser(userId: "frank", dryRun: true)
    #expect(dry.subscriptionsUnbound == 1)
    #expect(try await app.isSubscriber(userId: "frank", entitlement: "premium").active, "a dry run changes nothing")
    let erased = try await support.eraseUser(userId: "frank", dryRun: false, requestedBy: "dpo")
    #expect(erased.subscriptionsUnbound == 1)
    #expect(erased.events >= 1)
    #expect(!(try await app.isSubscriber(userId: "frank", entitlement: "premium").active))
    #expect(await clientErrorCode { _ = try await app.getSubscription(userId: "frank") } == .notFound)
    #expect(await clientErrorCode { _ = try await support.timeline(userId: "frank") } == .notFound)
    #expect(
      await clientErrorCode { _ = try await support.eraseUser(userId: "frank", dryRun: false) } == .notFound)
    let unbound = try await support.lookUp(identifier: purchase.originalTransactionId).matches
    #expect(unbound.map(\.userID) == [""])
    #expect(ISO8601Text.ms(unbound.first?.erasedAt ?? "") != nil)

    func claim(_ receipt: String, _ userId: String) async throws -> Tollgate_V1_SubmitPurchaseResponse {
      var request = Tollgate_V1_SubmitPurchaseRequest()
      request.userID = userId
      request.store = .appStore
      request.receipt = receipt
      request.waitMs = 8_000
      return try await app.submitPurchase(request, timeout: .seconds(10))
    }
    #expect(try await claim(purchase.transactionId, "mallory").status == .rejected, "a bare id binds nothing")
    #expect(try await support.lookUp(identifier: purchase.originalTransactionId).matches.map(\.userID) == [""])
    #expect(try await claim(purchase.signedTransaction, "erin").status == .verified, "fresh signed proof binds it")
    #expect(try await support.lookUp(identifier: purchase.originalTransactionId).matches.map(\.userID) == ["erin"])
    #expect(try await app.isSubscriber(userId: "erin", entitlement: "premium").active)
  }
}

import Testing
import TollgateCore
import TollgateSupport
import TollgateWorker

@Suite("SupportDesk.lookUp: every store identifier finds its chain and its user")
struct LookupTests {
  /// Alice's App Store chain, Bob's Google chain (first order, two renewals, a line item of
  /// another order), Carol's Amazon receipt, and an App Store chain bound to nobody.
  static func fixture() async throws -> SupportFixture {
    let fixture = SupportFixture()
    try await fixture.seedChain(.appStore, "2000001", userId: "alice", transactionIds: ["2000001", "2000002"])
    try await fixture.seedChain(
      .googlePlay, "token-bob", userId: "bob",
      transactionIds: ["GPA.3311-0000-0000-00001", "GPA.3311-0000-0000-00001..0", "GPA.3311-0000-0000-00001..1"])
    try await fixture.seedChain(
      .googlePlay, "token-bob-2", userId: "bob", transactionIds: ["GPA.3311-0000-0000-00009|premium.monthly"])
    try await fixture.seedChain(
      .amazon, "receipt-carol:3:11#1", userId: "carol", transactionIds: ["receipt-carol:3:11#1"],
      storeUserId: "amzn-user-carol")
    try await fixture.seedChain(.appStore, "3000001", userId: nil, transactionIds: ["3000001"])
    return fixture
  }

  @Test("each kind, given, finds the right user")
  func eachKind() async throws {
    let desk = try await Self.fixture().desk()
    func users(_ id: String, _ kind: StoreIdentifierKind?) async throws -> [String?] {
      try await desk.lookUp(id, kind: kind).matches.map(\.userId)
    }
    #expect(try await users("2000002", .appStoreTransactionId) == ["alice"])
    #expect(try await users("2000001", .appStoreOriginalTransactionId) == ["alice"])
    #expect(try await users("2000002", .appStoreOriginalTransactionId) == [], "a transaction id is no chain id")
    #expect(try await users("token-bob", .googlePlayPurchaseToken) == ["bob"])
    #expect(try await users("receipt-carol:3:11#1", .amazonReceiptId) == ["carol"])
    #expect(try await users("amzn-user-carol", .amazonUserId) == ["carol"])
    #expect(try await users("3000001", .appStoreOriginalTransactionId) == [nil], "bound to nobody")
    let amazon = try await desk.lookUp("amzn-user-carol", kind: .amazonUserId).matches
    #expect(amazon.first?.matchedAs == .amazonUserId)
    #expect(amazon.first?.purchaseId == "receipt-carol:3:11#1")
  }

  @Test("a Google order id, base or renewal, finds the first order, every renewal and a line-item split")
  func googleOrders() async throws {
    let desk = try await Self.fixture().desk()
    let base = try await desk.lookUp("GPA.3311-0000-0000-00001", kind: .googlePlayOrderId).matches
    #expect(
      base.map(\.transactionId) == [
        "GPA.3311-0000-0000-00001", "GPA.3311-0000-0000-00001..0", "GPA.3311-0000-0000-00001..1",
      ])
    #expect(Set(base.map(\.userId)) == ["bob"])
    #expect(Set(base.map(\.matchedAs)) == [.googlePlayOrderId])
    let renewal = try await desk.lookUp("GPA.3311-0000-0000-00001..1", kind: nil).matches
    #expect(renewal.count == 3, "a renewal's id is reduced to its order")
    let split = try await desk.lookUp("GPA.3311-0000-0000-00009", kind: nil).matches
    #expect(split.map(\.purchaseId) == ["token-bob-2"])
    #expect(split.first?.transactionId == "GPA.3311-0000-0000-00009|premium.monthly")
  }

  @Test("without a kind, the shape decides; an App Store original id matches once, as a chain")
  func unspecified() async throws {
    let desk = try await Self.fixture().desk()
    let original = try await desk.lookUp("2000001", kind: nil).matches
    #expect(original.count == 1)
    #expect(original.first?.matchedAs == .appStoreOriginalTransactionId)
    #expect(try await desk.lookUp("2000002", kind: nil).matches.first?.matchedAs == .appStoreTransactionId)
    #expect(try await desk.lookUp("token-bob", kind: nil).matches.first?.matchedAs == .googlePlayPurchaseToken)
    let unknown = try await desk.lookUp("no-such-id", kind: nil)
    #expect(unknown.matches.isEmpty)
    #expect(unknown.notes.isEmpty, "not shaped like an App Store order id: Apple is not asked")
  }

  @Test("an App Store order id maps each line to the stored chain, or to known = false")
  func appleOrders() async throws {
    let fixture = try await Self.fixture()
    let lines = [
      OrderLine(
        appId: "app", transactionId: "2000002", originalTransactionId: "2000001", productId: "premium.monthly",
        environment: .sandbox, signedAtMs: 1),
      OrderLine(
        appId: "app", transactionId: "9000002", originalTransactionId: "9000001", productId: "premium.monthly",
        environment: .production, signedAtMs: 2),
    ]
    let apple = FakeOrderLookup(.success(lines))
    let result = try await fixture.desk(gateways: [apple]).lookUp("MK5TTTVWJH", kind: nil)
    #expect(apple.callCount == 1, "nothing stored matched and the id is shaped like an order id")
    #expect(result.matches.count == 2)
    #expect(result.matches[0].userId == "alice")
    #expect(result.matches[0].known)
    #expect(result.matches[0].matchedAs == .appStoreOrderId)
    #expect(result.matches[0].transactionId == "2000002")
    #expect(!result.matches[1].known, "Apple lists it; Tollgate never verified it")
    #expect(result.matches[1].purchaseId == "9000001")
    #expect(result.matches[1].userId == nil)
    #expect(result.matches[1].state == nil)

    // A stored match never asks Apple unless the kind says so.
    _ = try await fixture.desk(gateways: [apple]).lookUp("2000001", kind: nil)
    #expect(apple.callCount == 1)
    _ = try await fixture.desk(gateways: [apple]).lookUp("2000001", kind: .appStoreOrderId)
    #expect(apple.callCount == 2)
  }

  @Test("Apple failing is a note beside stored matches, UNAVAILABLE alone; no App Store configured is a note")
  func appleTrouble() async throws {
    let fixture = try await Self.fixture()
    let down = FakeOrderLookup(.failure(StoreFailure(.transient, "HTTP 503")))
    await #expect(throws: SupportError.self) {
      try await fixture.desk(gateways: [down]).lookUp("MK5TTTVWJH", kind: .appStoreOrderId)
    }
    do {
      _ = try await fixture.desk(gateways: [down]).lookUp("MK5TTTVWJH", kind: nil)
      Issue.record("an unreachable App Store with no stored match answered")
    } catch let error as SupportError {
      #expect(error.code == .orderLookupUnavailable)
    }
    let none = try await fixture.desk().lookUp("MK5TTTVWJH", kind: .appStoreOrderId)
    #expect(none.matches.isEmpty)
    #expect(none.notes.count == 1)
    #expect(none.notes.first?.contains("no appStore section") == true)
  }

  @Test("an empty or oversized identifier is refused before storage is asked")
  func refusals() async throws {
    let desk = try await Self.fixture().desk()
    for identifier in ["", String(repeating: "9", count: 2_049)] {
      do {
        _ = try await desk.lookUp(identifier, kind: nil)
        Issue.record("\(identifier.count) bytes were looked up")
      } catch let error as SupportError {
        #expect(error.code == .invalidIdentifier)
      }
    }
  }
}

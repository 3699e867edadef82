import Testing
import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateSupport
import TollgateWorker

@Suite("AdminResponder: request checks, who asked, and errors as the proto's codes")
struct AdminResponderTests {
  static let day = SupportFixture.day
  static let now = SupportFixture.now

  static func grant(
    _ userId: String = "alice", _ entitlement: String = "premium", until: String? = nil, note: String = "",
    requestedBy: String = ""
  ) -> Tollgate_V1_GrantRequest {
    var request = Tollgate_V1_GrantRequest()
    request.userID = userId
    request.entitlement = entitlement
    request.until = until ?? ISO8601Text.text(ms: now + 30 * day)
    request.note = note
    request.requestedBy = requestedBy
    return request
  }

  @Test("a grant is written with the caller and the person behind it as the event's actor")
  func grantRecordsActor() async throws {
    let fixture = SupportFixture()
    await fixture.saveCatalog()
    let response = await fixture.responder().grant(
      Self.grant(note: "ticket 42", requestedBy: "jane"), caller: .ops)
    #expect(!response.hasError, "\(response.error)")
    #expect(!response.grantID.isEmpty)
    let grants = await fixture.storage.grants(userId: "alice")
    #expect(grants.map(\.expiresAtMs) == [Self.now + 30 * Self.day])
    let event = await fixture.storage.events(userId: "alice").last
    #expect(event?.kind == "granted")
    #expect(event?.details.grant?.actor == "ops for jane")
    #expect(event?.details.grant?.note == "ticket 42")

    let anonymous = await fixture.responder().grant(Self.grant("bob"), caller: .anyone)
    #expect(!anonymous.hasError)
    #expect(await fixture.storage.events(userId: "bob").last?.details.grant?.actor == "anonymous")
  }

  @Test(
    "a grant is refused for an unknown entitlement, a past or malformed until, an empty or 257-byte user id, a 2 KiB note"
  )
  func grantRefusals() async throws {
    let fixture = SupportFixture()
    await fixture.saveCatalog()
    let responder = fixture.responder()
    let refused: [(Tollgate_V1_GrantRequest, String)] = [
      (Self.grant("alice", "platinum"), "the catalog has no entitlement \"platinum\"; it names: premium, basic"),
      (Self.grant(until: ISO8601Text.text(ms: Self.now - 1)), "is not after now"),
      (Self.grant(until: ISO8601Text.text(ms: Self.now)), "is not after now"),
      (Self.grant(until: "tomorrow"), "is not an RFC 3339 date-time"),
      (Self.grant(until: ""), "until is required"),
      (Self.grant(""), "user_id is required"),
      (Self.grant(String(repeating: "u", count: 257)), "user_id is longer than 256 bytes"),
      (Self.grant(note: String(repeating: "n", count: 2_048)), "note is longer than 1024 bytes"),
      (Self.grant("alice", ""), "entitlement is required"),
      (Self.grant("alice", String(repeating: "e", count: 129)), "entitlement is longer than 128 bytes"),
      (Self.grant(requestedBy: "jane\nrevoked"), "requested_by holds a control character"),
    ]
    for (request, message) in refused {
      let response = await responder.grant(request, caller: .ops)
      #expect(response.error.code == .invalidArgument, "\(message)")
      #expect(response.error.message.contains(message), "\(response.error.message)")
    }
    #expect(await fixture.storage.grants(userId: "alice").isEmpty, "nothing was written")
    #expect(await responder.grant(Self.grant(String(repeating: "u", count: 256)), caller: .ops).hasError == false)
  }

  @Test("before any worker saved a catalog, a grant is UNAVAILABLE")
  func noCatalog() async {
    let response = await SupportFixture().responder().grant(Self.grant(), caller: .ops)
    #expect(response.error.code == .unavailable)
    #expect(response.error.message.contains("no worker has run on this database yet"))
  }

  @Test("revoke ends open grants with the actor; with none open it is NOT_FOUND")
  func revoke() async throws {
    let fixture = SupportFixture()
    await fixture.saveCatalog()
    let responder = fixture.responder()
    var request = Tollgate_V1_RevokeRequest()
    request.userID = "alice"
    request.entitlement = "premium"
    request.requestedBy = "jane"
    #expect(await responder.revoke(request, caller: .ops).error.code == .notFound)
    _ = await responder.grant(Self.grant(), caller: .ops)
    let revoked = await responder.revoke(request, caller: .ops)
    #expect(!revoked.hasError)
    #expect(revoked.revoked == 1)
    let event = await fixture.storage.events(userId: "alice").last
    #expect(event?.kind == "grant_revoked")
    #expect(event?.details.grant?.actor == "ops for jane")
  }

  @Test("erase: a dry run counts and writes nothing; the erase leaves nothing; then NOT_FOUND")
  func erase() async throws {
    let fixture = SupportFixture()
    await fixture.saveCatalog()
    try await fixture.seedChain(.appStore, "2000001", userId: "alice", transactionIds: ["2000001"])
    _ = await fixture.responder().grant(Self.grant(), caller: .ops)
    let responder = fixture.responder()
    var request = Tollgate_V1_EraseUserRequest()
    request.userID = "alice"
    request.dryRun = true
    let dry = await responder.eraseUser(request, caller: .ops)
    #expect(!dry.hasError)
    #expect(dry.dryRun)
    #expect(dry.subscriptionsUnbound == 1)
    #expect(dry.grants == 1)
    #expect(dry.events == 2)
    #expect(await fixture.storage.subscriptions(userId: "alice").count == 1, "the dry run wrote nothing")
    #expect(await fixture.storage.grants(userId: "alice").count == 1)

    request.dryRun = false
    let erased = await responder.eraseUser(request, caller: .ops)
    #expect(!erased.hasError)
    #expect(erased.subscriptionsUnbound == 1)
    #expect(await fixture.storage.subscriptions(userId: "alice").isEmpty)
    #expect(await fixture.storage.grants(userId: "alice").isEmpty)
    #expect(await fixture.storage.events(userId: "alice").isEmpty)
    let chain = await fixture.storage.subscription(store: .appStore, purchaseId: "2000001")
    #expect(chain?.userId == nil)
    #expect(chain?.erasedAtMs == Self.now, "the purchase stays, bound to nobody")
    #expect(await responder.eraseUser(request, caller: .ops).error.code == .notFound)
    var timeline = Tollgate_V1_GetTimelineRequest()
    timeline.userID = "alice"
    #expect(await responder.getTimeline(timeline, caller: .ops).error.code == .notFound)

    var lookUp = Tollgate_V1_LookUpRequest()
    lookUp.identifier = "2000001"
    let found = await responder.lookUp(lookUp, caller: .ops)
    #expect(found.matches.map(\.userID) == [""])
    #expect(found.matches.first?.erasedAt == ISO8601Text.text(ms: Self.now))
  }

  @Test("timeline and explain answer with RFC 3339 times; lookUp with ISO access end and the kind matched")
  func readsInProtoTerms() async throws {
    let fixture = SupportFixture()
    await fixture.saveCatalog()
    try await fixture.seedChain(.appStore, "2000001", userId: "alice", transactionIds: ["2000001", "2000002"])
    let responder = fixture.responder()
    var request = Tollgate_V1_GetTimelineRequest()
    request.userID = "alice"
    let timeline = await responder.getTimeline(request, caller: .ops)
    #expect(!timeline.hasError)
    #expect(timeline.userID == "alice")
    #expect(timeline.evaluatedAt == ISO8601Text.text(ms: Self.now))
    #expect(timeline.entries.map(\.kind) == ["period", "period", "now"])
    #expect(timeline.entries.first?.at == ISO8601Text.text(ms: Self.now - 60 * Self.day))
    #expect(timeline.entries.first?.until == ISO8601Text.text(ms: Self.now - 29 * Self.day))
    #expect(timeline.entries.last?.state == .active)
    #expect(timeline.entries.first?.store == .appStore)

    var lookUp = Tollgate_V1_LookUpRequest()
    lookUp.identifier = "2000002"
    lookUp.kind = .appStoreTransactionID
    let found = await responder.lookUp(lookUp, caller: .ops)
    #expect(found.matches.count == 1)
    #expect(found.matches.first?.userID == "alice")
    #expect(found.matches.first?.matchedAs == .appStoreTransactionID)
    #expect(found.matches.first?.accessEndsAt == ISO8601Text.text(ms: Self.now + Self.day))
    #expect(found.matches.first?.known == true)
    lookUp.kind = .UNRECOGNIZED(42)
    #expect(await responder.lookUp(lookUp, caller: .ops).error.code == .invalidArgument)

    _ = await responder.grant(Self.grant(note: "goodwill"), caller: .ops)
    var explain = Tollgate_V1_ExplainRequest()
    explain.userID = "alice"
    explain.entitlement = "premium"
    let explained = await responder.explain(explain, caller: .ops)
    #expect(!explained.hasError)
    #expect(explained.evaluatedAt == ISO8601Text.text(ms: Self.now))
    #expect(explained.recentEvents.last?.kind == "granted")
    #expect(explained.recentEvents.last?.at == ISO8601Text.text(ms: Self.now))
  }

  @Test("reverify of a user with no store subscription is NOT_FOUND; with one it counts it")
  func reverify() async throws {
    let fixture = SupportFixture()
    let responder = fixture.responder()
    var request = Tollgate_V1_ReverifyRequest()
    request.userID = "alice"
    #expect(await responder.reverify(request, caller: .ops).error.code == .notFound)
    try await fixture.seedChain(.appStore, "2000001", userId: "alice", transactionIds: ["2000001"])
    let answer = await responder.reverify(request, caller: .ops)
    #expect(!answer.hasError)
    #expect(answer.subscriptions == 1)
  }
}

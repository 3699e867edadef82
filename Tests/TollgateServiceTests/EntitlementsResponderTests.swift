import Logging
import Testing
import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateIndex
import TollgateSQLite
import TollgateServer
import TollgateService
import TollgateStorage
import TollgateTesting
import TollgateWire

/// The hot path's answers to `requests` (given as strings) from `responder`: how many it
/// answered, as messages.
func hotPathAnswers(_ responder: EntitlementsResponder, _ requests: [(user: String, entitlement: String)])
  -> [Tollgate_V1_IsSubscriberResponse]
{
  // The bytes the server would send, read back by swift-protobuf.
  hotPathAnswerBytes(responder, requests).map { bytes in
    do {
      return try Tollgate_V1_IsSubscriberResponse(serializedBytes: bytes)
    } catch {
      Issue.record("the hot path wrote an answer swift-protobuf cannot read: \(error)")
      return .init()
    }
  }
}

@Suite("Entitlements service answers")
struct EntitlementsResponderTests {
  struct Fixture {
    let dir: TemporaryDirectory
    let storage: SQLiteEntitlementStorage
    let follower: ChangeFeedFollower
    let service: EntitlementsResponder
    let clock: ManualClock

    init(
      records: [EntitlementRecord], nowMs: Int64 = 1_000_000,
      responder: EntitlementsResponder.Config = .defaults
    ) async throws {
      dir = try TemporaryDirectory()
      storage = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
      for (user, userRecords) in Dictionary(grouping: records, by: \.userId) {
        try await storage.replaceEntitlements(userId: user, with: userRecords, reason: "seed", nowMs: 1)
      }
      clock = ManualClock(nowMs: nowMs)
      let index = EntitlementIndex()
      follower = ChangeFeedFollower(
        storage: storage, index: index, nowMs: clock.function, logger: Logger(label: "test"))
      try await follower.loadSnapshot()
      service = EntitlementsResponder(
        index: index, follower: follower, storage: storage, config: responder, nowMs: clock.function,
        logger: Logger(label: "test"))
    }

    func isSubscriber(_ user: String, _ entitlement: String = "premium") -> Tollgate_V1_IsSubscriberResponse {
      var request = Tollgate_V1_IsSubscriberRequest()
      request.userID = user
      request.entitlement = entitlement
      return service.isSubscriber(request)
    }
  }

  @Test("an active subscription is entitled until its access ends, then reads as expired without any write")
  func expiryAtQueryTime() async throws {
    let f = try await Fixture(records: [.sample(userId: "u", expiresAtMs: 2_000_000, verifiedAtMs: 900_000)])
    defer { f.dir.remove() }
    var answer = f.isSubscriber("u")
    #expect(answer.active)
    #expect(answer.state == .active)
    #expect(answer.expiresAtMs == 2_000_000)
    #expect(answer.verifiedAtMs == 900_000)
    #expect(answer.store == .appStore)
    #expect(answer.storeSubscriptionID == "otx-u")
    f.clock.set(1_999_999)
    #expect(f.isSubscriber("u").active)
    f.clock.set(2_000_000)
    answer = f.isSubscriber("u")
    #expect(!answer.active)
    #expect(answer.state == .expired)
    #expect(answer.evaluatedAtMs == 2_000_000)
  }

  @Test("grace period is entitled until the grace end; billing retry is not entitled")
  func graceAndRetry() async throws {
    let f = try await Fixture(records: [
      .sample(userId: "g", state: .gracePeriod, expiresAtMs: 500_000, accessEndsAtMs: 1_500_000),
      .sample(userId: "r", state: .billingRetry, expiresAtMs: 500_000, accessEndsAtMs: 500_000),
    ])
    defer { f.dir.remove() }
    let grace = f.isSubscriber("g")
    #expect(grace.active)
    #expect(grace.state == .gracePeriod)
    #expect(grace.expiresAtMs == 1_500_000)
    let retry = f.isSubscriber("r")
    #expect(!retry.active)
    #expect(retry.state == .billingRetry)
  }

  @Test("with several sources, an active one wins over a later-ending revoked one")
  func bestSource() async throws {
    let f = try await Fixture(records: [
      .sample(userId: "u", source: "app_store:1", state: .revoked, expiresAtMs: 9_000_000),
      .sample(userId: "u", source: "google_play:tok", state: .active, expiresAtMs: 1_200_000, store: .googlePlay),
    ])
    defer { f.dir.remove() }
    let answer = f.isSubscriber("u")
    #expect(answer.active)
    #expect(answer.store == .googlePlay)
    #expect(answer.storeSubscriptionID == "tok")
  }

  @Test("an unknown user or entitlement is simply not entitled")
  func unknown() async throws {
    let f = try await Fixture(records: [.sample(userId: "u", expiresAtMs: 2_000_000)])
    defer { f.dir.remove() }
    for answer in [f.isSubscriber("nobody"), f.isSubscriber("u", "other")] {
      #expect(!answer.active)
      #expect(!answer.hasError)
      #expect(answer.state == .unspecified)
    }
  }

  @Test("missing or oversized fields are INVALID_ARGUMENT with a message")
  func invalidArguments() async throws {
    let f = try await Fixture(records: [])
    defer { f.dir.remove() }
    #expect(f.isSubscriber("", "premium").error.code == .invalidArgument)
    #expect(f.isSubscriber("u", "").error.message == "entitlement is required")
    // The admin calls check the same limit in the same words (EntitlementNameLimits).
    #expect(
      f.isSubscriber("u", String(repeating: "e", count: 129)).error.message == "entitlement is longer than 128 bytes")
    #expect(!f.isSubscriber("u", String(repeating: "e", count: 128)).hasError)
    #expect(f.isSubscriber(String(repeating: "x", count: 257)).error.code == .invalidArgument)
    var get = Tollgate_V1_GetSubscriptionRequest()
    get.userID = ""
    #expect(f.service.getSubscription(get).error.code == .invalidArgument)
  }

  @Test(
    "the hot path answers the valid calls at the front as the message path does, and stops at the first invalid one")
  func hotPath() async throws {
    let f = try await Fixture(records: [
      .sample(userId: "u", expiresAtMs: 2_000_000), .sample(userId: "v", state: .revoked, expiresAtMs: 3_000_000),
    ])
    defer { f.dir.remove() }
    let valid = [("u", "premium"), ("v", "premium"), ("nobody", "premium"), ("u", "other")].map {
      (user: $0.0, entitlement: $0.1)
    }
    let invalid = [(user: "", entitlement: "premium"), (user: "u", entitlement: String(repeating: "e", count: 129))]
    for refused in invalid {
      let answers = hotPathAnswers(f.service, valid + [refused, (user: "u", entitlement: "premium")])
      #expect(answers == valid.map { f.isSubscriber($0.user, $0.entitlement) })
      #expect(answers.first?.active == true)
      #expect(hotPathAnswers(f.service, [refused]).isEmpty)
    }
  }

  @Test("GetSubscription lists each source and each entitlement; an unknown user is NOT_FOUND")
  func getSubscription() async throws {
    let f = try await Fixture(records: [
      .sample(userId: "u", entitlement: "premium", source: "app_store:1", expiresAtMs: 2_000_000),
      .sample(userId: "u", entitlement: "pro", source: "app_store:1", expiresAtMs: 2_000_000),
      .sample(userId: "u", entitlement: "premium", source: "promotional:7", expiresAtMs: 900_000, store: .promotional),
    ])
    defer { f.dir.remove() }
    var request = Tollgate_V1_GetSubscriptionRequest()
    request.userID = "u"
    let response = f.service.getSubscription(request)
    #expect(!response.hasError)
    #expect(response.subscriptions.map(\.storeSubscriptionID) == ["1", "7"])
    #expect(response.subscriptions[0].entitlements == ["premium", "pro"])
    #expect(response.subscriptions[0].active)
    #expect(!response.subscriptions[1].active)
    #expect(response.subscriptions[1].state == .expired)
    #expect(response.entitlements.map(\.entitlement) == ["premium", "pro"])
    #expect(response.entitlements.allSatisfy { $0.active })
    request.userID = "nobody"
    #expect(f.service.getSubscription(request).error.code == .notFound)
  }

  @Test("SubmitPurchase validates per store, stores durably and answers PENDING without a worker")
  func submitPurchase() async throws {
    let f = try await Fixture(records: [])
    defer { f.dir.remove() }
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = "u"
    request.store = .googlePlay
    request.purchaseToken = "tok"
    #expect(
      await f.service.submitPurchase(request, caller: .anyone).error.message
        == "store GOOGLE_PLAY needs purchase_token and product_id")
    request.store = .unspecified
    #expect(await f.service.submitPurchase(request, caller: .anyone).error.code == .invalidArgument)
    request.store = .promotional
    #expect(await f.service.submitPurchase(request, caller: .anyone).error.code == .invalidArgument)

    request.store = .appStore
    request.receipt = "2000000123"
    request.waitMs = 30
    let response = await f.service.submitPurchase(request, caller: .anyone)
    #expect(!response.hasError)
    #expect(response.status == .pending)
    let id = try #require(Int64(response.submissionID))
    let stored = try #require(try await f.storage.submission(id: id))
    #expect(stored.submission.receipt == "2000000123")
    #expect(stored.submission.store == .appStore)
  }

  @Test("SubmitPurchase records its caller; GetSubmission shows a submission to that caller and to admins only")
  func submissionsBelongToTheirCaller() async throws {
    let f = try await Fixture(records: [])
    defer { f.dir.remove() }
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = "u"
    request.store = .appStore
    request.receipt = "2000000123"
    let web = CallerIdentity(name: "web", scopes: [.read, .submit])
    let response = await f.service.submitPurchase(request, caller: web)
    let id = try #require(Int64(response.submissionID))
    let stored = try #require(try await f.storage.submission(id: id))
    #expect(stored.submission.caller == "web")
    #expect(stored.submission.callerIsTrusted == false)

    var get = Tollgate_V1_GetSubmissionRequest()
    get.submissionID = response.submissionID
    let own = await f.service.getSubmission(get, caller: web)
    #expect(!own.hasError)
    #expect(own.status == .pending)
    #expect(own.userID == "u")
    #expect(own.submissionID == response.submissionID)
    let other = await f.service.getSubmission(get, caller: CallerIdentity(name: "game", scopes: [.submit]))
    #expect(other.error.code == .notFound)
    #expect(other.status == .unspecified)
    let admin = await f.service.getSubmission(get, caller: CallerIdentity(name: "ops", scopes: [.admin]))
    #expect(admin.status == .pending)
    #expect(await f.service.getSubmission(get, caller: .anyone).status == .pending)
    get.submissionID = "99999"
    #expect(await f.service.getSubmission(get, caller: .anyone).error.code == .notFound)
    get.submissionID = "not-a-number"
    #expect(await f.service.getSubmission(get, caller: .anyone).error.code == .invalidArgument)

    let trusted = await f.service.submitPurchase(request, caller: CallerIdentity(name: "ops", scopes: [.admin]))
    let trustedId = try #require(Int64(trusted.submissionID))
    #expect(try await f.storage.submission(id: trustedId)?.submission.callerIsTrusted == true)
  }

  @Test("A user with the most pending submissions gets RESOURCE_EXHAUSTED; other users do not")
  func pendingSubmissionsPerUserAreBounded() async throws {
    var config = EntitlementsResponder.Config.defaults
    config.maximumPendingPerCallerAndUser = 3
    let f = try await Fixture(records: [], responder: config)
    defer { f.dir.remove() }
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = "flood"
    request.store = .appStore
    for number in 0..<3 {
      request.receipt = "20000001\(number)"
      #expect(await f.service.submitPurchase(request, caller: .anyone).status == .pending)
    }
    request.receipt = "200000019"
    let refused = await f.service.submitPurchase(request, caller: .anyone)
    #expect(refused.error.code == .resourceExhausted)
    #expect(refused.submissionID.isEmpty)
    request.userID = "someone-else"
    #expect(await f.service.submitPurchase(request, caller: .anyone).status == .pending)
  }

  @Test("Health reports the index and turns DEGRADED when the feed has not been read for a while")
  func health() async throws {
    let f = try await Fixture(records: [.sample(userId: "u", expiresAtMs: 1)])
    defer { f.dir.remove() }
    var health = f.service.health(Tollgate_V1_HealthRequest())
    #expect(health.status == .serving)
    #expect(health.indexUsers == 1)
    #expect(health.indexRecords == 1)
    #expect(health.changeFeedAppliedSeq == 1)
    f.clock.advance(byMs: 60_000)
    health = f.service.health(Tollgate_V1_HealthRequest())
    #expect(health.status == .degraded)
    #expect(health.changeFeedLagMs == 60_000)
  }
}

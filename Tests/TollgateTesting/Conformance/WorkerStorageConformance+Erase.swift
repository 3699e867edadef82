import Testing
import TollgateCore
import TollgateWorker

/// The GDPR erase (issue 28, `WorkerStorage.eraseUser`), through the storage's own reads: the
/// user's chains stay bound to nobody with `erasedAtMs`, tokens naming the user go, grants,
/// events, entitlements go, other users' claim and transfer events lose the name and nothing
/// else, the newest event is scrubbed rather than deleted, a dry run writes nothing, and a second
/// erase finds nothing. `+EraseOrder` has what needs the database's own tables or other writers.
extension WorkerStorageConformance {
  /// The user every erase case erases: distinctive, so a search of the database for it finds it
  /// only where it was written.
  public static let erasedUser = "Erin.7f3c@example"

  /// What an erase case starts from (one handle): the user's chain with a token naming them and
  /// an event, a grant; another user's chain whose token names them; another user's claim and
  /// transfer events naming them.
  static func storeErasureFixture(_ storage: any WorkerStorage) async throws {
    let user = erasedUser
    let own = chain("2000001", user: user, store: .appStore, transactionIds: ["2000001"], appAccountToken: user)
    try await storage.apply(change(own, events: [event("purchased", of: own, atMs: 10)]), recompute: recompute)
    let named = chain(
      "tok-named", user: "olga", store: .googlePlay, transactionIds: ["GPA.1111-2222-3333-44444"],
      appAccountToken: user.lowercased())
    var refused = event("transfer_refused", of: named, atMs: 11)
    refused.detail = "claimed by \(user) under keep_owner"
    try await storage.apply(change(named, events: [refused]), recompute: recompute)
    let moved = chain("amzn-moved", user: "olga", store: .amazon, transactionIds: ["amzn-moved"])
    var transferred = event("transferred", of: moved, atMs: 13)
    transferred.detail = "from \(user) under last_claim_wins"
    try await storage.apply(change(moved, events: [transferred], alsoRecompute: user), recompute: recompute)
    _ = try await storage.addGrant(
      userId: user, entitlement: "premium", expiresAtMs: 9_000, note: "goodwill", actor: "support", nowMs: 14,
      recompute: recompute)
  }

  /// The counts the fixture's erase gives.
  static let fixtureCounts = ErasureCounts(
    subscriptionsUnbound: 1, appAccountTokensCleared: 1, grants: 1, events: 2, eventsScrubbed: 2, submissions: 0,
    entitlementRecords: 2)

  /// The erase unbinds the user's chains (erasure time, version + 1, no token, no scheduled
  /// check), clears tokens naming them elsewhere, deletes their grants, events and entitlements,
  /// takes their name out of others' claim and transfer events (not out of a decoy's), keeps the
  /// newest event as a placeholder whose id is never handed out again; a second erase finds nothing.
  public static func eraseRemovesTheUser(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let user = erasedUser
      try await storeErasureFixture(storage)
      // A claim by a user whose id only starts like theirs keeps its text.
      let decoyChain = chain(
        "tok-decoy", user: "olga", store: .googlePlay, transactionIds: ["GPA.9999-0000-0000-00001"])
      var decoy = event("claim_refused", of: decoyChain, atMs: 12)
      decoy.detail = "claimed by \(user)x, whose id differs from the purchase's app account token"
      try await storage.apply(change(decoyChain, events: [decoy]), recompute: recompute)
      _ = try await storage.addGrant(
        userId: user, entitlement: "extra", expiresAtMs: 9_000, note: nil, nowMs: 15, recompute: recompute)
      let before = try await storage.events(after: 0, limit: 100)
      let newest = try #require(before.last, "\(sut.name)")
      #expect(newest.event.kind == "granted" && newest.event.userId == user, "\(sut.name): the fixture's last event")
      let version = try #require(try await storage.subscription(store: .appStore, purchaseId: "2000001")).version

      let counts = try await storage.eraseUser(user, dryRun: false, nowMs: 500)
      var expected = fixtureCounts
      expected.grants += 1
      expected.events += 1
      expected.entitlementRecords += 1
      #expect(counts == expected, "\(sut.name)")

      let handle = try await database.openHandle()
      let chain = try #require(try await handle.subscription(store: .appStore, purchaseId: "2000001"), "\(sut.name)")
      #expect(chain.userId == nil && chain.erasedAtMs == 500 && chain.version == version + 1, "\(sut.name)")
      #expect(chain.appAccountToken == nil && chain.storeUserId == nil && chain.nextCheckAtMs == nil, "\(sut.name)")
      let fixture = WorkerStorageConformance.chain("2000001", user: nil, store: .appStore, transactionIds: ["2000001"])
      #expect(chain.history == fixture.history && chain.state == .active, "\(sut.name): the purchase itself stays")
      let named = try #require(try await handle.subscription(store: .googlePlay, purchaseId: "tok-named"))
      #expect(named.userId == "olga" && named.appAccountToken == nil && named.erasedAtMs == nil, "\(sut.name)")
      #expect(try await handle.subscriptions(userId: user).isEmpty, "\(sut.name)")
      #expect(try await handle.grants(userId: user).isEmpty, "\(sut.name)")
      #expect(try await handle.entitlements(userId: user).isEmpty, "\(sut.name)")
      #expect(try await handle.events(userId: user).isEmpty, "\(sut.name)")
      #expect(try await handle.entitlements(userId: "olga").count == 3, "\(sut.name): others keep theirs")

      let details = try await handle.events(store: .googlePlay, purchaseId: "tok-named").map { $0.detail ?? "" }
      #expect(details == ["claimed by an erased user under keep_owner"], "\(sut.name)")
      let decoyDetails = try await handle.events(store: .googlePlay, purchaseId: "tok-decoy").map(\.detail)
      #expect(decoyDetails == [decoy.detail], "\(sut.name): the decoy names someone else")
      let moved = try await handle.events(store: .amazon, purchaseId: "amzn-moved")
      #expect(moved.map(\.detail) == ["from an erased user under last_claim_wins"], "\(sut.name)")
      #expect(moved.map(\.userId) == ["olga"], "\(sut.name)")

      // The newest event stays, with nothing of the user; the next event gets a higher id.
      let after = try await handle.events(after: 0, limit: 100)
      let placeholder = try #require(after.last, "\(sut.name)")
      #expect(placeholder.id == newest.id && placeholder.event.kind == ErasureText.placeholderKind, "\(sut.name)")
      #expect(placeholder.event.userId == nil && placeholder.event.purchaseId.isEmpty, "\(sut.name)")
      #expect(placeholder.event.detail == nil && placeholder.event.details == EventDetails(), "\(sut.name)")
      #expect(!after.contains { $0.event.userId == user }, "\(sut.name)")
      _ = try await handle.addGrant(
        userId: "olga", entitlement: "premium", expiresAtMs: 9_000, note: nil, nowMs: 600, recompute: recompute)
      #expect(try await handle.events(after: newest.id, limit: 10).count == 1, "\(sut.name): a new id above it")

      #expect(try await storage.eraseUser(user, dryRun: false, nowMs: 700) == ErasureCounts(), "\(sut.name)")
      #expect(try await storage.eraseUser("nobody", dryRun: true, nowMs: 700).isEmpty, "\(sut.name)")
    }
  }

  /// A dry run returns what the erase then removes, and changes nothing any read shows.
  public static func eraseDryRunWritesNothing(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let user = erasedUser
      try await storeErasureFixture(storage)
      func snapshot() async throws -> [String] {
        var lines: [String] = []
        for (store, id) in [(Store.appStore, "2000001"), (.googlePlay, "tok-named"), (.amazon, "amzn-moved")] {
          lines.append("\(String(describing: try await storage.subscription(store: store, purchaseId: id)))")
        }
        lines.append("\(try await storage.grants(userId: user))")
        lines.append("\(try await storage.entitlements(userId: user))")
        lines.append("\(try await storage.events(after: 0, limit: 100))")
        return lines
      }
      let before = try await snapshot()
      let dry = try await storage.eraseUser(user, dryRun: true, nowMs: 500)
      #expect(dry == fixtureCounts, "\(sut.name)")
      #expect(try await snapshot() == before, "\(sut.name): the dry run wrote nothing")
      #expect(try await storage.eraseUser(user, dryRun: false, nowMs: 500) == dry, "\(sut.name)")
    }
  }
}

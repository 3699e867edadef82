import Testing
import TollgateCore
import TollgateStorage
import TollgateWorker

/// The GDPR erase against the database itself and against other writers (issue 28): after the
/// erase and a prune through its change-feed entry no column of any table holds the user id (the
/// tables are listed from the database's own catalog, so a table added later is searched too);
/// the erase is serialised with every apply and grant of the user, from any handle.
extension WorkerStorageConformance {
  /// Submissions of every status go (a claim in flight then finishes nothing), and once a prune
  /// passed the erase's feed entry (`PrunePlan.erasureMarkersBeforeMs`; not before it is old
  /// enough, and never while it is the newest entry) nothing of the user is left anywhere.
  public static func eraseLeavesNothingOfTheUser(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let columnsHolding = try #require(
        database.columnsHolding, "\(sut.name) has no tables to search: disable this case in its runner, saying why")
      let openFeed = try #require(
        database.openFeed, "\(sut.name) has no feed view: disable this case in its runner, saying why")
      let storage = database.storage
      let feed = try await openFeed()
      let user = erasedUser
      try await storeErasureFixture(storage)
      let submission = PurchaseSubmission(userId: user, store: .appStore, receipt: "2000001")
      for n in 0..<3 { _ = try await feed.submitPurchase(submission, nowMs: 20 + Int64(n)) }
      let claimed = try await storage.claimInbox(nowMs: 30, limit: 2, leaseMs: 60_000)
      #expect(claimed.count == 2, "\(sut.name)")
      let (rejected, inFlight) = (try #require(claimed.first), try #require(claimed.last))
      try await storage.finishInbox(
        id: rejected.id, claimToken: rejected.claimToken, state: .rejected, outcome: "refused", nowMs: 31)

      let written = Set(try await columnsHolding(user))
      let expected: Set = [
        "users.user_id", "subscriptions.user_id", "subscriptions.app_account_token", "grants.user_id",
        "events.user_id", "events.detail", "inbox.user_id", "entitlements.user_id", "change_feed.user_id",
      ]
      #expect(written.isSuperset(of: expected), "\(sut.name): the search finds the user first: \(written.sorted())")

      let counts = try await storage.eraseUser(user, dryRun: false, nowMs: 500)
      #expect(counts.submissions == 3 && counts.subscriptionsUnbound == 1, "\(sut.name)")
      do {
        try await storage.finishInbox(
          id: inFlight.id, claimToken: inFlight.claimToken, state: .verified, outcome: "late", nowMs: 40)
        Issue.record("\(sut.name): a deleted submission was finished")
      } catch let conflict as StorageConflict {
        #expect(conflict.kind == .claimLost, "\(sut.name)")
      }
      let left = try await columnsHolding(user)
      #expect(left == ["change_feed.user_id"], "\(sut.name): only the feed entry is left: \(left)")

      // Not before the erase's entry is old enough; then every entry before it goes, but the
      // entry itself stays while it is the newest (a follower compares the newest entry).
      var plan = PrunePlan(
        finishedInboxBeforeMs: .min, changeFeedBeforeMs: .min, eventsBeforeMs: .min, eventsDeliveredThroughId: nil,
        erasureMarkersBeforeMs: 500)
      #expect(try await storage.prune(plan).changeFeed == 0, "\(sut.name): the entry is not old enough yet")
      plan.erasureMarkersBeforeMs = 10_000
      let head = try await feed.headSeq()
      #expect(try await storage.prune(plan).changeFeed > 0, "\(sut.name): the entries before it go")
      #expect(try await columnsHolding(user) == ["change_feed.user_id"], "\(sut.name): the newest entry stays")
      #expect(try await feed.headSeq() == head, "\(sut.name)")
      // Once another write follows it, it goes too.
      try await storage.apply(change(subscription("later", user: "olga")), recompute: recompute)
      #expect(try await storage.prune(plan).changeFeed == 1, "\(sut.name)")
      let none = try await columnsHolding(user)
      #expect(none.isEmpty, "\(sut.name): nothing of the user is left: \(none)")
      #expect(try await feed.headSeq() > 0, "\(sut.name): the feed's newest entry stays")
    }
  }

  /// A change computed before the erase fails with `.chainChanged` and writes nothing; an apply
  /// and an erase of one user from two handles at once end with the chain bound to nobody and
  /// nothing of the user, whichever came first.
  public static func eraseSerialisesWithApply(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let other = try await database.openHandle()
      let user = erasedUser
      let own = chain("2000001", user: user, store: .appStore, transactionIds: ["2000001"])
      try await storage.apply(change(own), recompute: recompute)
      let stale = change(own, nowMs: 20, expectedVersion: 1)
      _ = try await other.eraseUser(user, dryRun: false, nowMs: 30)
      do {
        try await storage.apply(stale, recompute: recompute)
        Issue.record("\(sut.name): a change computed before the erase bound the chain again")
      } catch let conflict as StorageConflict {
        #expect(conflict.kind == .chainChanged, "\(sut.name)")
      }
      #expect(try await storage.subscription(store: .appStore, purchaseId: "2000001")?.userId == nil, "\(sut.name)")
      #expect(try await storage.entitlements(userId: user).isEmpty, "\(sut.name)")

      for round in 0..<6 {
        let racer = "racer-\(round)"
        let raced = chain("race-\(round)", user: racer, store: .appStore, transactionIds: ["race-\(round)"])
        try await storage.apply(change(raced), recompute: recompute)
        let renewal = change(raced, nowMs: 40, expectedVersion: 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask {
            do {
              try await storage.apply(renewal, recompute: recompute)
            } catch let conflict as StorageConflict where conflict.kind == .chainChanged {
              // The erase came first.
            }
          }
          group.addTask { _ = try await other.eraseUser(racer, dryRun: false, nowMs: 50) }
          try await group.waitForAll()
        }
        let stored = try await storage.subscription(store: .appStore, purchaseId: "race-\(round)")
        #expect(stored?.userId == nil && stored?.erasedAtMs == 50, "\(sut.name): round \(round)")
        #expect(try await storage.entitlements(userId: racer).isEmpty, "\(sut.name): round \(round)")
        #expect(try await other.subscriptions(userId: racer).isEmpty, "\(sut.name): round \(round)")
      }
    }
  }

  /// Erases and grants of one user from four handles at once end consistent: the entitlements
  /// are what the user's chains and grants give, whichever order they committed in.
  public static func erasesAndGrantsAtOnce(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let handles = try await database.handles(4)
      for round in 0..<4 {
        let user = "granted-\(round)"
        let owned = chain("owned-\(round)", user: user, store: .appStore, transactionIds: ["owned-\(round)"])
        try await handles[0].apply(change(owned), recompute: recompute)
        try await withThrowingTaskGroup(of: Void.self) { group in
          for (n, handle) in handles.enumerated() {
            group.addTask {
              if n.isMultiple(of: 2) {
                _ = try await handle.eraseUser(user, dryRun: false, nowMs: 100)
              } else {
                _ = try await handle.addGrant(
                  userId: user, entitlement: "e\(n)", expiresAtMs: 9_000, note: nil, nowMs: 100, recompute: recompute)
              }
            }
          }
          try await group.waitForAll()
        }
        let grants = try await handles[1].grants(userId: user)
        let chains = try await handles[2].subscriptions(userId: user)
        let expected = recompute(user, chains, grants).map(\.source)
        #expect(
          Set(try await handles[3].entitlements(userId: user).map(\.source)) == Set(expected),
          "\(sut.name): round \(round)")
        #expect(chains.isEmpty, "\(sut.name): round \(round): the chain stays unbound")
      }
    }
  }
}

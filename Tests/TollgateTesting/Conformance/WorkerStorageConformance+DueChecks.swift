import Testing
import TollgateCore
import TollgateWorker

/// Scheduled checks are claimed (`WorkerStorage.claimDueChecks`): a claimed check is due to
/// nobody else until its lease ends, and its postponement is fenced by the claim's token.
extension WorkerStorageConformance {
  /// A claimed check is not handed to a second claimer (another handle, or the same one) while its
  /// lease lasts; once it ended (its worker died) another claim takes it with a new token, and the
  /// first claim's postponement is refused (`.claimLost`) and writes nothing.
  public static func claimedCheckIsDueToNobodyElse(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let a = database.storage
      let b = try await database.openHandle()
      try await a.apply(change(subscription("otx-d", user: "alice", expiresAtMs: 100)), recompute: recompute)
      let first = try await a.claimDueChecks(nowMs: 100, limit: 10, leaseMs: 1_000)
      #expect(first.map(\.subscription.purchaseId) == ["otx-d"], "\(sut.name): the due check is claimed")
      #expect(first.first?.subscription.nextCheckAtMs == 1_100, "\(sut.name): claimed until its lease ends")
      #expect(first.first?.subscription.version == 1, "\(sut.name): the claim reads the chain's version")
      #expect(
        try await b.claimDueChecks(nowMs: 500, limit: 10, leaseMs: 1_000).isEmpty,
        "\(sut.name): a live claim is not handed out again (another handle)")
      #expect(
        try await a.claimDueChecks(nowMs: 1_099, limit: 10, leaseMs: 1_000).isEmpty,
        "\(sut.name): a live claim is not handed out again (same handle)")
      let second = try await b.claimDueChecks(nowMs: 1_100, limit: 10, leaseMs: 1_000)
      #expect(second.map(\.subscription.purchaseId) == ["otx-d"], "\(sut.name): an ended lease is claimable again")
      let firstToken = try #require(first.first?.claimToken)
      let secondToken = try #require(second.first?.claimToken)
      #expect(firstToken != secondToken, "\(sut.name): each claim has its own token")

      let lost = await #expect(throws: StorageConflict.self, "\(sut.name): the lost claim cannot postpone") {
        try await a.postponeCheck(
          store: .appStore, purchaseId: "otx-d", claimToken: firstToken, untilMs: 9, failures: 5)
      }
      #expect(lost?.kind == .claimLost, "\(sut.name): refused as claim_lost")
      let kept = try await b.subscription(store: .appStore, purchaseId: "otx-d")
      #expect(
        kept?.nextCheckAtMs == 2_100 && kept?.failures == 0, "\(sut.name): the refused postponement wrote nothing")

      try await b.postponeCheck(
        store: .appStore, purchaseId: "otx-d", claimToken: secondToken, untilMs: 5_000, failures: 1)
      let postponed = try await a.subscription(store: .appStore, purchaseId: "otx-d")
      #expect(postponed?.nextCheckAtMs == 5_000 && postponed?.failures == 1, "\(sut.name): the holder postpones")
      #expect(postponed?.version == 1, "\(sut.name): a postponement is not a write of the verified chain")
      await #expect(throws: StorageConflict.self, "\(sut.name): a postponement ends the claim") {
        try await b.postponeCheck(
          store: .appStore, purchaseId: "otx-d", claimToken: secondToken, untilMs: 6_000, failures: 2)
      }
      #expect(
        try await a.claimDueChecks(nowMs: 4_999, limit: 10, leaseMs: 1_000).isEmpty,
        "\(sut.name): not due before the postponement")
      #expect(
        try await a.claimDueChecks(nowMs: 5_000, limit: 10, leaseMs: 1_000).count == 1,
        "\(sut.name): due at the postponement")
    }
  }

  /// A write of the chain (`apply`, by anyone) ends the claim of its check: the claimer's later
  /// postponement is refused, and the check is due when the write scheduled it. A postponement
  /// made under no claim (nil token) always lands.
  public static func applyEndsTheCheckClaim(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let a = database.storage
      let b = try await database.openHandle()
      try await a.apply(change(subscription("otx-e", user: "alice", expiresAtMs: 100)), recompute: recompute)
      let claimed = try #require(try await a.claimDueChecks(nowMs: 100, limit: 10, leaseMs: 1_000).first)
      var renewed = claimed.subscription
      renewed.expiresAtMs = 3_000
      renewed.nextCheckAtMs = 3_000
      var write = change(renewed, nowMs: 150)
      write.expectedVersion = claimed.subscription.version
      try await b.apply(write, recompute: recompute)
      let conflict = await #expect(throws: StorageConflict.self, "\(sut.name): the write ended the claim") {
        try await a.postponeCheck(
          store: .appStore, purchaseId: "otx-e", claimToken: claimed.claimToken, untilMs: 200, failures: 1)
      }
      #expect(conflict?.kind == .claimLost, "\(sut.name): refused as claim_lost")
      #expect(
        try await b.subscription(store: .appStore, purchaseId: "otx-e")?.nextCheckAtMs == 3_000,
        "\(sut.name): the write's schedule stays")
      try await a.postponeCheck(store: .appStore, purchaseId: "otx-e", claimToken: nil, untilMs: 200, failures: 0)
      #expect(
        try await b.claimDueChecks(nowMs: 200, limit: 10, leaseMs: 1_000).map(\.subscription.purchaseId)
          == ["otx-e"], "\(sut.name): a postponement under no claim lands")
    }
  }

  /// Several workers claiming at once: every due check goes to exactly one of them.
  public static func concurrentClaimsHandEachCheckOnce(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let handles = try await database.handles(4)
      let chains = (0..<30).map { "chain-\($0)" }
      for chain in chains {
        try await database.storage.apply(change(subscription(chain, user: "u", expiresAtMs: 100)), recompute: recompute)
      }
      let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
        for handle in handles {
          group.addTask {
            var mine: [String] = []
            // Bounded, so a storage that hands checks out again fails rather than spins.
            for _ in 0..<chains.count {
              let batch = try await handle.claimDueChecks(nowMs: 100, limit: 3, leaseMs: 60_000)
              if batch.isEmpty { break }
              mine += batch.map(\.subscription.purchaseId)
            }
            return mine
          }
        }
        var all: [String] = []
        for try await mine in group { all += mine }
        return all
      }
      #expect(claimed.count == chains.count, "\(sut.name): \(claimed.count) claims of \(chains.count) checks")
      #expect(claimed.sorted() == chains.sorted(), "\(sut.name): each check claimed exactly once")
    }
  }

  /// A due chain whose row no longer decodes is not handed out: its check is put off (an hour),
  /// and everyone else's checks go on.
  public static func undecodableDueCheckIsPutOff(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let corrupt = try #require(
        database.corruptSubscription,
        "\(sut.name) cannot hold an undecodable row: disable this case in its runner, saying why")
      for chain in ["bad", "good"] {
        try await database.storage.apply(
          change(subscription(chain, user: chain, expiresAtMs: 100)), recompute: recompute)
      }
      try await corrupt(.appStore, "bad")
      #expect(
        try await database.storage.claimDueChecks(nowMs: 100, limit: 10, leaseMs: 1_000).map(\.subscription.purchaseId)
          == ["good"], "\(sut.name): the decodable check is claimed")
      #expect(
        try await database.storage.claimDueChecks(nowMs: 500, limit: 10, leaseMs: 1_000).isEmpty,
        "\(sut.name): the undecodable check is put off, the good one claimed")
      #expect(
        try await database.storage.claimDueChecks(nowMs: 3_600_100, limit: 10, leaseMs: 1_000).map(
          \.subscription.purchaseId) == ["good"], "\(sut.name): still only the good check, once its lease ended")
    }
  }
}

extension WorkerStorageConformance {
  /// A worker renews the claim of a check it is still making (`renewCheckClaims`): another handle
  /// is not handed it past its first lease, only once the renewed lease ends, while an unrenewed
  /// claim is taken over once its lease ends; a claim that was replaced, or that an `apply`
  /// ended, is not renewed (the check stays with its new holder, or due when the write said).
  public static func renewedCheckClaimIsNotTakenOver(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let a = database.storage
      let b = try await database.openHandle()
      try await a.apply(change(subscription("otx-r", user: "alice", expiresAtMs: 100)), recompute: recompute)
      try await a.apply(change(subscription("otx-u", user: "bob", expiresAtMs: 100)), recompute: recompute)
      let claimed = try await a.claimDueChecks(nowMs: 100, limit: 10, leaseMs: 50)
      #expect(Set(claimed.map(\.subscription.purchaseId)) == ["otx-r", "otx-u"], "\(sut.name): both claimed")
      let renewed = try #require(claimed.first { $0.subscription.purchaseId == "otx-r" })
      #expect(try await a.renewCheckClaims([renewed.claim], untilMs: 300) == 1, "\(sut.name): renewed")
      #expect(
        try await b.claimDueChecks(nowMs: 200, limit: 10, leaseMs: 1_000).map(\.subscription.purchaseId) == ["otx-u"],
        "\(sut.name): the unrenewed claim is taken over after its lease, the renewed one is not")
      #expect(
        try await b.claimDueChecks(nowMs: 300, limit: 10, leaseMs: 50).map(\.subscription.purchaseId) == ["otx-r"],
        "\(sut.name): taken once the renewed lease ends")
      #expect(
        try await a.renewCheckClaims([renewed.claim], untilMs: 1_000) == 0, "\(sut.name): a lost claim stays lost")
      let again = try await b.claimDueChecks(nowMs: 360, limit: 10, leaseMs: 50)
      #expect(
        again.map(\.subscription.purchaseId) == ["otx-r"],
        "\(sut.name): the new holder's lease was not extended by the old claim")
      let held = try #require(again.first)
      try await b.apply(
        change(subscription("otx-r", user: "alice", expiresAtMs: 5_000), expectedVersion: 1), recompute: recompute)
      #expect(try await b.renewCheckClaims([held.claim], untilMs: 9_000) == 0, "\(sut.name): an apply ended the claim")
      #expect(
        try await a.subscription(store: .appStore, purchaseId: "otx-r")?.nextCheckAtMs == 5_000,
        "\(sut.name): due when the write said")
    }
  }
}

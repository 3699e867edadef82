import Testing
import TollgateCore
import TollgateWorker

/// Conditional apply (`WorkerStorage.apply`, `SubscriptionChange.expectedVersion`) and the
/// per-user serialisation of recompute: what keeps an older read from overwriting a newer write,
/// and two chains of one user from dropping each other, with several workers on one database.
extension WorkerStorageConformance {
  /// Entitlements from the user's active chains only: a refunded chain entitles nobody.
  static let activeOnly: EntitlementRecompute = { userId, subscriptions, grants in
    recompute(userId, subscriptions.filter { $0.state == .active }, grants)
  }

  /// `subscription` refunded: revoked, access ended at `atMs`.
  static func refunded(_ subscription: StoredSubscription, atMs: Int64) -> StoredSubscription {
    var refunded = subscription
    refunded.state = .revoked
    refunded.reason = "refunded"
    refunded.accessEndsAtMs = atMs
    return refunded
  }

  /// A chain's version counts its writes: 0 before it is stored, then 1, 2, … as every read
  /// (of the chain, of its user's chains) shows; a write expecting another version is refused.
  public static func versionsCountWrites(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let other = try await database.openHandle()
      let chain = subscription("otx-v", user: "alice")
      try await storage.apply(change(chain), recompute: activeOnly)
      #expect(
        try await other.subscription(store: .appStore, purchaseId: "otx-v")?.version == 1,
        "\(sut.name): a new chain is stored at version 1")
      var again = change(chain, nowMs: 20)
      again.expectedVersion = 1
      try await other.apply(again, recompute: activeOnly)
      #expect(
        try await storage.subscriptions(userId: "alice").map(\.version) == [2],
        "\(sut.name): the second write stores version 2")
      var create = change(chain, nowMs: 30)
      create.expectedVersion = 0
      let conflict = await #expect(throws: StorageConflict.self, "\(sut.name): a second creation is refused") {
        try await storage.apply(create, recompute: activeOnly)
      }
      #expect(conflict?.kind == .chainChanged, "\(sut.name): refused as chain_changed")
      #expect(
        try await other.subscription(store: .appStore, purchaseId: "otx-v")?.version == 2,
        "\(sut.name): the refused write changed nothing")
    }
  }

  /// Two refreshes of one chain, the older answer landing last (two workers, each its own
  /// handle): A reads the chain, B reads it and writes the refund, then A writes the answer it
  /// read before the refund. A's write is refused (`.chainChanged`) and writes nothing at all:
  /// the refund stays, alice stays without access, no event or inbox completion of A's lands.
  public static func olderReadNeverOverwritesNewerWrite(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let a = database.storage
      let b = try await database.openHandle()
      let bought = subscription("otx-r", user: "alice")
      try await a.apply(change(bought, events: [event("purchased", of: bought, atMs: 1)]), recompute: activeOnly)
      _ = try await a.storeNotification(route: "r", dedupeKey: "renewal", payload: [1], nowMs: 2)
      let claimed = try #require(try await a.claimInbox(nowMs: 2, limit: 1, leaseMs: 60_000).first)

      let readByA = try #require(try await a.subscription(store: .appStore, purchaseId: "otx-r"))
      let readByB = try #require(try await b.subscription(store: .appStore, purchaseId: "otx-r"))
      let refund = refunded(readByB, atMs: 3)
      var refundChange = change(refund, events: [event("refunded", of: refund, atMs: 3)], nowMs: 3)
      refundChange.expectedVersion = readByB.version
      try await b.apply(refundChange, recompute: activeOnly)

      var renewed = readByA
      renewed.expiresAtMs = 2_000_000
      renewed.accessEndsAtMs = 2_000_000
      var late = change(
        renewed, events: [event("renewed", of: renewed, atMs: 4)],
        completes: InboxCompletion(claimed.claim, state: .verified, outcome: "renewed"), nowMs: 4)
      late.expectedVersion = readByA.version
      let conflict = await #expect(throws: StorageConflict.self, "\(sut.name): the older read is refused") {
        try await a.apply(late, recompute: activeOnly)
      }
      #expect(conflict?.kind == .chainChanged, "\(sut.name): refused as chain_changed")

      let stored = try #require(try await b.subscription(store: .appStore, purchaseId: "otx-r"))
      #expect(stored.state == .revoked && stored.accessEndsAtMs == 3, "\(sut.name): the refund stays")
      #expect(stored.version == readByA.version + 1, "\(sut.name): one write after the read, the refund's")
      #expect(try await b.entitlements(userId: "alice").isEmpty, "\(sut.name): alice is not re-entitled")
      #expect(
        try await b.events(userId: "alice").map(\.kind) == ["purchased", "refunded"],
        "\(sut.name): the refused write's event did not land")
      #expect(try await b.inboxCounts() == ["processing": 1], "\(sut.name): the refused write completed no item")
    }
  }

  /// Several workers writing one chain from the same read at once: exactly one write lands, every
  /// other is refused as `.chainChanged`.
  public static func concurrentWritesOfOneReadLandOnce(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let handles = try await database.handles(4)
      let chain = subscription("otx-c", user: "alice")
      try await database.storage.apply(change(chain), recompute: activeOnly)
      let read = try #require(try await database.storage.subscription(store: .appStore, purchaseId: "otx-c"))
      let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
        for (n, handle) in handles.enumerated() {
          group.addTask {
            var written = read
            written.expiresAtMs = 2_000_000 + Int64(n)
            var write = change(written, nowMs: 10 + Int64(n))
            write.expectedVersion = read.version
            do {
              try await handle.apply(write, recompute: activeOnly)
              return true
            } catch let conflict as StorageConflict where conflict.kind == .chainChanged {
              return false
            }
          }
        }
        var outcomes: [Bool] = []
        for try await landed in group { outcomes.append(landed) }
        return outcomes
      }
      #expect(outcomes.filter { $0 }.count == 1, "\(sut.name): \(outcomes.filter { $0 }.count) writes landed, not 1")
      #expect(
        try await database.storage.subscription(store: .appStore, purchaseId: "otx-c")?.version == read.version + 1,
        "\(sut.name): one write after the read")
    }
  }

  /// Two chains of one user written at once by two workers (and grants beside them): the user's
  /// recompute is serialised by storage, so each sees the other's chain and every entitlement is
  /// there in the end.
  public static func twoChainsOfOneUserWrittenAtOnce(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let a = database.storage
      let b = try await database.openHandle()
      let pairs = 12
      try await withThrowingTaskGroup(of: Void.self) { group in
        for n in 0..<pairs {
          group.addTask {
            try await a.apply(change(subscription("a-\(n)", user: "carol"), nowMs: 10), recompute: recompute)
          }
          group.addTask {
            try await b.apply(change(subscription("b-\(n)", user: "carol"), nowMs: 10), recompute: recompute)
          }
        }
        group.addTask {
          _ = try await b.addGrant(
            userId: "carol", entitlement: "premium", expiresAtMs: 9_000_000, note: nil, actor: nil, nowMs: 10,
            recompute: recompute)
        }
        try await group.waitForAll()
      }
      let sources = Set(try await a.entitlements(userId: "carol").map(\.source))
      let chains = Set((0..<pairs).flatMap { ["app_store:a-\($0)", "app_store:b-\($0)"] })
      #expect(
        sources.intersection(chains).count == 2 * pairs,
        "\(sut.name): \(sources.intersection(chains).count) of \(2 * pairs) chains in carol's entitlements")
      #expect(sources.count == 2 * pairs + 1, "\(sut.name): and the grant")
    }
  }
}

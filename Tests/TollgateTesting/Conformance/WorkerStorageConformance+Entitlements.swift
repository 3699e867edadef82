import Testing
import TollgateCore
import TollgateStorage
import TollgateWorker

/// The service's view (`openFeed`, an `EntitlementStorage`): replacing a user's records writes them
/// and one change-feed entry, read the same from another handle; every field of a record round-trips;
/// a submitted purchase is stored durably and read back pending.
extension WorkerStorageConformance {
  /// Two handles of the service's view on one database (what two `serve` replicas hold).
  static func feeds(_ sut: WorkerStorageUnderTest, _ database: ConformanceDatabase) async throws -> (
    any EntitlementStorage, any EntitlementStorage
  ) {
    let openFeed = try #require(
      database.openFeed, "\(sut.name) has no feed view: disable this case in its runner, saying why")
    return (try await openFeed(), try await openFeed())
  }

  /// Replacing a user's entitlements writes the rows and one change-feed entry, in order; another
  /// handle reads them (snapshot, head, changes, records); no records at all is a write too.
  public static func replaceEntitlementsAppendsFeed(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let (storage, other) = try await feeds(sut, database)
      let a = EntitlementRecord.sample(userId: "alice", expiresAtMs: 5_000)
      let b = EntitlementRecord.sample(userId: "alice", entitlement: "pro", expiresAtMs: 6_000)
      let bob = EntitlementRecord.sample(userId: "bob", expiresAtMs: 7_000)
      let seq1 = try await storage.replaceEntitlements(userId: "alice", with: [a, b], reason: "purchase", nowMs: 10)
      let seq2 = try await other.replaceEntitlements(userId: "bob", with: [bob], reason: "purchase", nowMs: 11)
      let seq3 = try await storage.replaceEntitlements(userId: "alice", with: [b], reason: "refund", nowMs: 12)
      #expect(seq1 < seq2 && seq2 < seq3, "\(sut.name)")

      let snapshot = try await other.loadSnapshot()
      #expect(snapshot.headSeq == seq3, "\(sut.name)")
      #expect(try await storage.headSeq() == seq3, "\(sut.name)")
      #expect(Set(snapshot.records) == [b, bob], "\(sut.name)")

      let changes = try await other.changes(after: seq1, limit: 10)
      #expect(changes.map(\.userId) == ["bob", "alice"], "\(sut.name)")
      #expect(changes.map(\.reason) == ["purchase", "refund"], "\(sut.name)")
      #expect(changes.map(\.atMs) == [11, 12], "\(sut.name)")
      #expect(try await other.changes(after: seq1, limit: 1).count == 1, "\(sut.name)")
      #expect(try await other.changes(after: seq3, limit: 10).isEmpty, "\(sut.name)")
      #expect(try await other.entitlements(forUsers: ["alice", "nobody", "alice"]) == ["alice": [b]], "\(sut.name)")
      #expect(try await other.entitlements(forUsers: []) == [:], "\(sut.name)")

      // A Google purchase's chain of replaced tokens is stored with its record; no records at all
      // is a write too (a refund that ends everything).
      var upgraded = EntitlementRecord.sample(userId: "carol", expiresAtMs: 8_000)
      upgraded.replaces = ["tok-b.AO-J1", "tok-a_x"]
      try await storage.replaceEntitlements(userId: "carol", with: [upgraded], reason: "purchase", nowMs: 13)
      #expect(try await other.entitlements(forUsers: ["carol"]) == ["carol": [upgraded]], "\(sut.name)")
      let emptied = try await storage.replaceEntitlements(userId: "carol", with: [], reason: "refund", nowMs: 14)
      #expect(try await other.entitlements(forUsers: ["carol"]) == [:], "\(sut.name)")
      #expect(try await other.changes(after: emptied - 1, limit: 5).map(\.userId) == ["carol"], "\(sut.name)")
    }
  }

  /// A record round-trips every field: each state, both flags, extreme times, reason and replaced
  /// purchases.
  public static func entitlementRecordRoundTrips(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let (storage, _) = try await feeds(sut, database)
      for (number, state) in SubscriptionState.allCases.enumerated() {
        let record = EntitlementRecord(
          userId: "u-\(state.rawValue)", entitlement: "e", source: "google_play:tok", store: .googlePlay,
          productId: "p", environment: .sandbox, state: state, willRenew: number.isMultiple(of: 2), expiresAtMs: -5,
          accessEndsAtMs: Int64.max, verifiedAtMs: 123,
          reason: StateReason.allCases[number % StateReason.allCases.count],
          replaces: number.isMultiple(of: 2) ? [] : ["older", "oldest"])
        try await storage.replaceEntitlements(userId: record.userId, with: [record], reason: "t", nowMs: 1)
        #expect(
          try await storage.entitlements(forUsers: [record.userId])[record.userId] == [record], "\(sut.name): \(state)")
        #expect(try await storage.loadSnapshot().records.contains(record), "\(sut.name): \(state) in the snapshot")
      }
    }
  }

  /// A submitted purchase is stored durably and read back pending by another handle, with its
  /// caller; an unknown id is nil.
  public static func submissionReadBackPending(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let (storage, other) = try await feeds(sut, database)
      var submission = PurchaseSubmission(
        userId: "alice", store: .appStore, receipt: "2000000123", productId: "monthly")
      submission.caller = "backend"
      let id = try await storage.submitPurchase(submission, nowMs: 50)
      let record = try #require(try await other.submission(id: id), "\(sut.name): read back")
      #expect(record.submission == submission, "\(sut.name)")
      #expect(record.state == .pending, "\(sut.name)")
      #expect(record.receivedAtMs == 50, "\(sut.name)")
      #expect(try await other.submission(id: id + 100) == nil, "\(sut.name)")
    }
  }
}

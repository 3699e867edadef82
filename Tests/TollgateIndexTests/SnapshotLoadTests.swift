import Logging
import Testing
import TollgateCore
import TollgateSQLite
import TollgateStorage
import TollgateTesting

@testable import TollgateIndex

/// The load at scale (`SnapshotLoader` over `readSnapshot`: rows in place, both ends of the table
/// at once, in batches) against the slow path it replaced (every `EntitlementRecord` of
/// `streamSnapshot` inserted one by one): the same users, records, counts and answers.
@Suite("Snapshot loaded from both ends")
struct SnapshotLoadTests {
  static let now: Int64 = 1_000_000

  /// Users of every kind: one to three records, numbered and text sources, replaced purchases,
  /// reasons (store_unreachable among them), sandbox, lapsed, ids that are prefixes of others
  /// and non-ASCII ids (byte order decides where the ends meet).
  static func records() -> [EntitlementRecord] {
    var records: [EntitlementRecord] = []
    let reasons: [StateReason?] = [nil] + StateReason.allCases
    for n in 0..<1_500 {
      let ids = ["user-\(n)", "ü-\(n)", n < 20 ? String(repeating: "a", count: n + 1) : "z\(n * 7_919 % 1_000)-\(n)"]
      for (k, userId) in ids.enumerated() {
        let count = (n + k) % 3 + 1
        for r in 0..<count {
          var record = EntitlementRecord.sample(
            userId: userId, entitlement: r == 1 ? "pro" : "premium",
            source: (n + r).isMultiple(of: 4) ? "google_play:token-\(n)-\(r)" : "app_store:\(2_000_000 + n * 3 + r)",
            state: SubscriptionState.allCases[(n + r) % SubscriptionState.allCases.count],
            productId: "product-\(n % 5)", expiresAtMs: now + Int64((n % 7) - 3) * 1_000,
            verifiedAtMs: Int64(n), willRenew: n.isMultiple(of: 2), store: Store.allCases[(n + r) % 4],
            environment: n.isMultiple(of: 3) ? .sandbox : .production)
          record.reason = reasons[(n + r) % reasons.count]
          if n.isMultiple(of: 11) { record.replaces = ["old-\(n)", "older-\(n)"] }
          records.append(record)
        }
      }
    }
    return records
  }

  static func seeded() async throws -> (TemporaryDirectory, SQLiteEntitlementStorage, [String]) {
    let dir = try TemporaryDirectory()
    let storage = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
    let byUser = Dictionary(grouping: records(), by: \.userId)
    try await storage.replaceEntitlements(
      batch: byUser.map { (userId: $0.key, records: $0.value) }, reason: "t", nowMs: 1)
    return (dir, storage, byUser.keys.sorted())
  }

  /// The slow path: every record of `streamSnapshot`, inserted one by one.
  static func serial(_ storage: some EntitlementStorage) async throws -> EntitlementIndex {
    let index = EntitlementIndex()
    _ = try await storage.streamSnapshot { index.insert($0) }
    return index
  }

  static func loaded(
    _ storage: some EntitlementStorage, ends: Int, batchUsers: Int
  ) async throws -> (index: EntitlementIndex, forwards: Int, backwards: Int) {
    let loader = SnapshotLoader(batchUsers: batchUsers)
    _ = try await storage.readSnapshot(into: loader, ends: ends)
    let taken = loader.building.withLock { ($0.forwardsUsers, $0.backwardsUsers) }
    return (EntitlementIndex(loaded: loader.finish()), taken.0, taken.1)
  }

  static func expectSame(_ loaded: EntitlementIndex, as serial: EntitlementIndex, users: [String]) {
    #expect(loaded.userCount == serial.userCount)
    #expect(loaded.recordCount == serial.recordCount)
    #expect(loaded.storeUnreachableCount == serial.storeUnreachableCount)
    func sorted(_ records: [EntitlementRecord]) -> [EntitlementRecord] {
      records.sorted { ($0.entitlement, $0.source) < ($1.entitlement, $1.source) }
    }
    var differing: [String] = []
    for user in users + ["nobody", "user-"] {
      var same = sorted(loaded.records(for: user)) == sorted(serial.records(for: user))
      for entitlement in ["premium", "pro", "none"] {
        same =
          same
          && loaded.answer(userId: user, entitlement: entitlement, nowMs: now)
            == serial.answer(userId: user, entitlement: entitlement, nowMs: now)
      }
      if !same { differing.append(user) }
    }
    #expect(differing.isEmpty, "users answered differently: \(differing.prefix(10))")
  }

  @Test(
    "both ends, one end, any batch size: the same index as inserting every record one by one",
    arguments: [(2, 1), (2, 7), (2, 4_096), (1, 50)])
  func sameAsSerial(ends: Int, batchUsers: Int) async throws {
    let (dir, storage, users) = try await Self.seeded()
    defer { dir.remove() }
    let serial = try await Self.serial(storage)
    #expect(serial.userCount == users.count && serial.recordCount == Self.records().count)
    let (index, forwards, backwards) = try await Self.loaded(storage, ends: ends, batchUsers: batchUsers)
    Self.expectSame(index, as: serial, users: users)
    #expect(forwards + backwards == users.count, "each user taken by one end")
    if ends == 2, batchUsers < 100 { #expect(forwards > 0 && backwards > 0, "both ends took users") }
    // A user's records chain in key order, as a replacement from the feed leaves them.
    for user in users.prefix(200) {
      let sources = index.records(for: user).map { [$0.entitlement, $0.source] }
      #expect(sources == sources.sorted { $0.lexicographicallyPrecedes($1) })
    }
  }

  @Test("rows in no order through the protocol's default: a user named twice keeps all its records")
  func unorderedRows() async throws {
    let (dir, storage, users) = try await Self.seeded()
    defer { dir.remove() }
    let serial = try await Self.serial(storage)
    let (index, _, _) = try await Self.loaded(SnapshotTestStorage(storage, shuffled: true), ends: 2, batchUsers: 16)
    Self.expectSame(index, as: serial, users: users)
  }

  @Test("the loaded index follows the feed: replacements and removals after the load")
  func followsAfterLoad() async throws {
    let (dir, storage, users) = try await Self.seeded()
    defer { dir.remove() }
    let follower = ChangeFeedFollower(
      storage: storage, index: EntitlementIndex(), nowMs: { Self.now }, logger: Logger(label: "t"))
    try await follower.loadSnapshot()
    try await storage.replaceEntitlements(userId: users[0], with: [], reason: "t", nowMs: 1)
    try await storage.replaceEntitlements(
      userId: users[1], with: [.sample(userId: users[1], entitlement: "new", expiresAtMs: Self.now + 1)], reason: "t",
      nowMs: 1)
    _ = try await follower.poll()
    Self.expectSame(follower.index, as: try await Self.serial(storage), users: users)
    #expect(follower.index.answer(userId: users[1], entitlement: "new", nowMs: Self.now).active)
  }
}

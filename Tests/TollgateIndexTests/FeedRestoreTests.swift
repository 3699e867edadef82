import Logging
import Testing
import TollgateCore
import TollgateIndex
import TollgateSQLite
import TollgateStorage
import TollgateTesting

/// An online restore of an older backup (or of another database) under a following service: the
/// follower notices that the feed no longer continues the one it applied and reloads the index.
@Suite("Change feed restored under the follower")
struct FeedRestoreTests {
  struct Following {
    let dir: TemporaryDirectory
    let writer: SQLiteEntitlementStorage
    let follower: ChangeFeedFollower
    var index: EntitlementIndex { follower.index }
    var path: String { dir.file("db.sqlite") }

    init() async throws {
      dir = try TemporaryDirectory()
      writer = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
      let reader = try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1)
      follower = ChangeFeedFollower(
        storage: reader, index: EntitlementIndex(), nowMs: { 1 }, logger: Logger(label: "t"))
      try await follower.loadSnapshot()
    }

    func write(_ user: String) async throws {
      try await writer.replaceEntitlements(
        userId: user, with: [.sample(userId: user, expiresAtMs: 9_000)], reason: "t", nowMs: 1)
    }

    func users() -> [String] { ["a", "b", "c", "d", "e", "x"].filter { !index.records(for: $0).isEmpty } }
  }

  @Test("an older backup restored: the head falls behind what was applied; the index is reloaded and follows again")
  func olderBackup() async throws {
    let f = try await Following()
    defer { f.dir.remove() }
    try await f.write("a")
    try Connection(path: f.path).backup(to: f.dir.file("backup.sqlite"))
    try await f.write("b")
    try await f.write("c")
    #expect(try await f.follower.poll() == 3)
    #expect(f.users() == ["a", "b", "c"])

    try Connection(path: f.path).restore(from: f.dir.file("backup.sqlite"))
    _ = try await f.follower.poll()
    #expect(f.users() == ["a"], "b and c are not in the restored database")
    #expect(f.follower.currentPosition.appliedSeq == 1)
    #expect(f.follower.trouble == nil)
    // The feed numbers from 2 again: the follower sees the new changes (it used to skip them).
    try await f.write("d")
    #expect(try await f.follower.poll() == 1)
    #expect(f.users() == ["a", "d"])
  }

  @Test("an older backup restored and written to past the applied position: the rewritten entry gives it away")
  func olderBackupThenWrites() async throws {
    let f = try await Following()
    defer { f.dir.remove() }
    try await f.write("a")
    try Connection(path: f.path).backup(to: f.dir.file("backup.sqlite"))
    try await f.write("b")
    #expect(try await f.follower.poll() == 2)
    try Connection(path: f.path).restore(from: f.dir.file("backup.sqlite"))
    for user in ["c", "d", "e"] { try await f.write(user) }  // seq 2, 3, 4: the head passed 2 again
    _ = try await f.follower.poll()
    #expect(f.users() == ["a", "c", "d", "e"])
    #expect(f.follower.currentPosition.appliedSeq == 4)
  }

  @Test("another database restored in place: its id differs; the index becomes that database's")
  func anotherDatabase() async throws {
    let f = try await Following()
    defer { f.dir.remove() }
    try await f.write("a")
    try await f.write("b")
    #expect(try await f.follower.poll() == 2)
    let other = try SQLiteEntitlementStorage(path: f.dir.file("other.sqlite"), nowMs: 1)
    for user in ["x", "c", "d"] {
      try await other.replaceEntitlements(
        userId: user, with: [.sample(userId: user, expiresAtMs: 9_000)], reason: "t", nowMs: 1)
    }
    try Connection(path: f.path).restore(from: f.dir.file("other.sqlite"))
    _ = try await f.follower.poll()
    #expect(f.users() == ["c", "d", "x"])
  }
}

import Dispatch
import Logging
import Synchronization
import Testing
import TollgateContract
import TollgateCore
import TollgateIndex
import TollgateSQLite
import TollgateService
import TollgateStorage
import TollgateTesting

/// A restore detected under a serving replica: the whole index is reloaded from SQLite (both ends
/// of the table, `readSnapshot`) while IsSubscriber keeps being answered from the old index, never
/// UNAVAILABLE and never from an empty or half-loaded one, until the new index is complete.
@Suite("Reload under a serving replica")
struct ReloadAnsweringTests {
  static let now: Int64 = 1_000_000
  static let users = 600

  static func seed(_ path: String, extra: String) async throws {
    let storage = try SQLiteEntitlementStorage(path: path, nowMs: 1)
    let userIds = (0..<users).map { "user-\($0)" } + [extra]
    try await storage.replaceEntitlements(
      batch: userIds.map { (userId: $0, records: [.sample(userId: $0, expiresAtMs: now + 60_000)]) }, reason: "t",
      nowMs: 1)
  }

  static func isSubscriber(_ service: EntitlementsResponder, _ user: String) -> Tollgate_V1_IsSubscriberResponse {
    var request = Tollgate_V1_IsSubscriberRequest()
    request.userID = user
    request.entitlement = "premium"
    return service.isSubscriber(request)
  }

  @Test("paused halfway through the reload, every user is answered active from the old index; after it, from the new")
  func answersFromOldIndexUntilSwap() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    try await Self.seed(dir.file("db.sqlite"), extra: "only-before")
    try await Self.seed(dir.file("restored.sqlite"), extra: "only-after")
    // The reload's read stops after 200 rows until the test has asked every user.
    let armed = Atomic<Bool>(false)
    let paused = DispatchSemaphore(value: 0)
    let resume = DispatchSemaphore(value: 0)
    let storage = SnapshotTestStorage(
      try SQLiteEntitlementStorage(path: dir.file("db.sqlite"), nowMs: 1), pauseAfter: 200,
      pause: {
        guard armed.load(ordering: .relaxed) else { return }
        paused.signal()
        resume.wait()
      })
    let index = EntitlementIndex()
    let follower = ChangeFeedFollower(storage: storage, index: index, nowMs: { Self.now }, logger: Logger(label: "t"))
    try await follower.loadSnapshot()
    let service = EntitlementsResponder(
      index: index, follower: follower, storage: storage, nowMs: { Self.now }, logger: Logger(label: "t"))
    #expect(Self.isSubscriber(service, "only-before").active)

    try Connection(path: dir.file("db.sqlite")).restore(from: dir.file("restored.sqlite"))
    armed.store(true, ordering: .relaxed)
    async let reload: Int = follower.poll()
    // Wait (off the cooperative pool) until the reload's read is paused.
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        paused.wait()
        continuation.resume()
      }
    }
    guard case .reloading = follower.trouble else {
      Issue.record("no reload under way: \(String(describing: follower.trouble))")
      resume.signal()
      return
    }
    var wrong: [String] = []
    for user in (0..<Self.users).map({ "user-\($0)" }) + ["only-before"] {
      let answer = Self.isSubscriber(service, user)
      if answer.hasError || !answer.active { wrong.append(user) }
    }
    #expect(wrong.isEmpty, "answered UNAVAILABLE or inactive during the reload: \(wrong.prefix(5))")
    #expect(!Self.isSubscriber(service, "only-after").active, "the new index is not in use before it is complete")
    #expect(index.userCount == Self.users + 1)
    resume.signal()
    _ = try await reload

    #expect(Self.isSubscriber(service, "only-after").active)
    #expect(!Self.isSubscriber(service, "only-before").active)
    #expect(follower.trouble == nil)
    #expect(index.userCount == Self.users + 1)
  }
}

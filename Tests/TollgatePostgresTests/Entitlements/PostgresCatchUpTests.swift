import Synchronization
import Testing
import TollgateCore
import TollgatePostgres
import TollgateStorage
import TollgateTesting

/// `PostgresEntitlementStorage.catchUp`: one statement, so one snapshot. (What it answers, call by
/// call, is the conformance suite's `catchUpReadsWhatTheFourCallsRead`.)
@Suite("Catch-up on PostgreSQL")
struct PostgresCatchUpTests {
  /// What one snapshot guarantees about an answer, as problems found (none: consistent). The
  /// writes of these tests give each user one record whose `expiresAtMs` is the write's number,
  /// and their entries that number as `reason`. In one snapshot the head is at or past the last
  /// entry; an answer that did not fill its limit reaches the head; and each named user's records
  /// are those of the user's last write up to the head: exactly their last entry's when the
  /// entries reach the head, never an older one.
  static func problems(_ answer: FeedCatchUp, after seq: Int64, limit: Int) -> [String] {
    var problems: [String] = []
    let last = answer.entries.last?.seq ?? seq
    if last > answer.mark.headSeq { problems.append("entry \(last) past the head \(answer.mark.headSeq)") }
    let reachesHead = answer.entries.count < limit
    if reachesHead, last != answer.mark.headSeq {
      problems.append("\(answer.entries.count) of \(limit) entries end at \(last), the head is \(answer.mark.headSeq)")
    }
    var lastWrite: [String: Int64] = [:]
    for entry in answer.entries { lastWrite[entry.userId] = Int64(entry.reason) ?? -1 }
    for (user, write) in lastWrite {
      let records = answer.records[user] ?? []
      guard let stored = records.first?.expiresAtMs, records.count == 1 else {
        problems.append("\(user) has \(records.count) records")
        continue
      }
      if stored < write || (reachesHead && stored != write) {
        problems.append("\(user)'s records are from write \(stored), its last entry from write \(write)")
      }
    }
    return problems
  }

  static func write(_ storage: any EntitlementStorage, _ number: Int64, users: Int = 3) async throws {
    let user = "u\(number % Int64(users))"
    try await storage.replaceEntitlements(
      userId: user, with: [.sample(userId: user, expiresAtMs: number)], reason: "\(number)", nowMs: number)
  }

  @Test("while another pool writes, every answer is one snapshot: head, entries and records agree")
  func oneSnapshotUnderWrites() async throws {
    try await PostgresEntitlements.withStorages(count: 2) { _, storages in
      let (reader, writer) = (storages[0], storages[1])
      let writes: Int64 = 400
      let done = TaskCounter()
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
          defer { done.add() }
          for number in 1...writes { try await Self.write(writer, number) }
        }
        var position: Int64 = 0
        var answers = 0
        var lastEmptyAfterWriter = false
        while !lastEmptyAfterWriter {
          let writerDone = done.count == 1
          // Small limits, from a position a little behind, so that answers end both at their
          // limit and at the head, with users named more than once.
          let limit = [3, 5, 50][answers % 3]
          let after = max(0, position - Int64(answers % 4))
          let answer = try await reader.catchUp(after: after, limit: limit)
          let found = Self.problems(answer, after: after, limit: limit)
          #expect(found.isEmpty, "answer \(answers) after \(after): \(found)")
          if !found.isEmpty { break }
          answers += 1
          position = answer.entries.last?.seq ?? position
          lastEmptyAfterWriter = writerDone && answer.entries.count < limit && answer.mark.headSeq == position
        }
        try await group.waitForAll()
        #expect(position == writes, "the reader read every write")
        #expect(answers > 20, "answers read while the writer wrote: \(answers)")
      }
    }
  }

  @Test("the reads one after the other see a write between them (what one statement rules out)")
  func separateReadsSeeAWriteBetween() async throws {
    try await PostgresEntitlements.withStorages(count: 2) { _, storages in
      let (reader, writer) = (storages[0], storages[1])
      try await Self.write(writer, 1)
      // The protocol's default: the four calls in turn, with a write landing after the entries.
      let separate = WriteAfterChanges(base: reader) { try await Self.write(writer, 4) }
      let composed = try await separate.catchUp(after: 0, limit: 10)
      #expect(!Self.problems(composed, after: 0, limit: 10).isEmpty, "the checker sees the write in between")
      let one = try await reader.catchUp(after: 0, limit: 10)
      #expect(Self.problems(one, after: 0, limit: 10).isEmpty)
      #expect(one.entries.map(\.reason) == ["1", "4"] && one.records["u1"]?.first?.expiresAtMs == 4)
    }
  }

  @Test("access levels that cannot be read are the answer's failure; the entries still come")
  func unreadableAccessLevels() async throws {
    try await PostgresEntitlements.withStorages { _, storages in
      let storage = storages[0]
      _ = try await PostgresEntitlements.rows(
        storage,
        """
        INSERT INTO catalog (id, catalog_json, saved_at_ms)
        VALUES (1, '{"accessLevels": {"suspended": "none"}}', 1)
        """)
      try await Self.write(storage, 1)
      let answer = try await storage.catchUp(after: 0, limit: 10)
      guard case .failure(let unreadable) = answer.accessLevels else {
        Issue.record("levels naming an unknown state were read: \(answer.accessLevels)")
        return
      }
      #expect(unreadable.description.contains("suspended"))
      #expect(answer.entries.map(\.reason) == ["1"] && answer.records["u1"]?.count == 1)
      await #expect(throws: (any Error).self) { try await storage.savedAccessLevels() }
    }
  }
}

/// A storage that reads through `base` with the protocol's default `catchUp` (the four calls in
/// turn) and runs `between` once, right after the first `changes` read.
final class WriteAfterChanges: EntitlementStorage {
  let base: PostgresEntitlementStorage
  let between: Mutex<(@Sendable () async throws -> Void)?>

  init(base: PostgresEntitlementStorage, between: @escaping @Sendable () async throws -> Void) {
    self.base = base
    self.between = Mutex(between)
  }

  func changes(after seq: Int64, limit: Int) async throws -> [ChangeFeedEntry] {
    let entries = try await base.changes(after: seq, limit: limit)
    if let write = between.withLock({ $0.take() }) { try await write() }
    return entries
  }

  func streamSnapshot(_ each: @escaping @Sendable (EntitlementRecord) -> Void) async throws -> Int64 {
    try await base.streamSnapshot(each)
  }
  func headSeq() async throws -> Int64 { try await base.headSeq() }
  func feedMark(at seq: Int64) async throws -> FeedMark { try await base.feedMark(at: seq) }
  func problem() -> String? { base.problem() }
  func entitlements(forUsers userIds: [String]) async throws -> [String: [EntitlementRecord]] {
    try await base.entitlements(forUsers: userIds)
  }
  func replaceEntitlements(userId: String, with records: [EntitlementRecord], reason: String, nowMs: Int64) async throws
    -> Int64
  {
    try await base.replaceEntitlements(userId: userId, with: records, reason: reason, nowMs: nowMs)
  }
  func submitPurchase(_ submission: PurchaseSubmission, nowMs: Int64, admission: SubmissionAdmission) async throws
    -> Int64
  {
    try await base.submitPurchase(submission, nowMs: nowMs, admission: admission)
  }
  func submission(id: Int64) async throws -> SubmissionRecord? { try await base.submission(id: id) }
  func savedAccessLevels() async throws -> AccessLevelPolicy? { try await base.savedAccessLevels() }
}

import Testing
import TollgateCore
import TollgateStorage
import TollgateWorker

/// Submission admission (issue 25): the service's view (`openFeed`) counts the pending
/// submissions per (caller, user), signed ones apart, and refuses one past the bound; the bound
/// holds across handles (processes) submitting at once.
extension WorkerStorageConformance {
  static func submission(_ userId: String, caller: String?) -> PurchaseSubmission {
    var submission = PurchaseSubmission(userId: userId, store: .appStore, receipt: "2000000001")
    submission.caller = caller
    return submission
  }

  /// One caller's pending submissions for a user never hold back another caller's, another
  /// user's, a server without callers' (its own caller), nor a signed one; a finished one frees
  /// a place, a processing one still counts; the stored submission keeps its caller.
  public static func admissionCountedPerCallerAndUser(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let openFeed = try #require(
        database.openFeed, "\(sut.name) has no feed view: disable this case in its runner, saying why")
      let storage = try await openFeed()
      let unsigned = SubmissionAdmission(signed: false, maximumPending: 3)
      let signed = SubmissionAdmission(signed: true, maximumPending: 2)
      var ids: [Int64] = []
      for _ in 0..<3 {
        ids.append(
          try await storage.submitPurchase(submission("victim", caller: "attacker"), nowMs: 2, admission: unsigned))
      }
      await #expect(throws: TooManyPendingSubmissions(limit: 3, signed: false), "\(sut.name): past the bound") {
        try await storage.submitPurchase(submission("victim", caller: "attacker"), nowMs: 3, admission: unsigned)
      }
      _ = try await storage.submitPurchase(submission("victim", caller: "backend"), nowMs: 3, admission: unsigned)
      _ = try await storage.submitPurchase(submission("other", caller: "attacker"), nowMs: 3, admission: unsigned)
      _ = try await storage.submitPurchase(submission("victim", caller: nil), nowMs: 3, admission: unsigned)

      // Signed submissions have their own allowance: the unsigned ones do not hold them back.
      for _ in 0..<2 {
        _ = try await storage.submitPurchase(submission("victim", caller: "attacker"), nowMs: 4, admission: signed)
      }
      await #expect(throws: TooManyPendingSubmissions(limit: 2, signed: true), "\(sut.name): signed bound") {
        try await storage.submitPurchase(submission("victim", caller: "attacker"), nowMs: 5, admission: signed)
      }

      // Once the worker finishes one, the caller may submit another; a processing one still counts.
      let claimed = try await database.storage.claimInbox(nowMs: 5, limit: 2, leaseMs: 60_000, excluding: [])
      #expect(claimed.map(\.id) == Array(ids[0..<2]), "\(sut.name): the oldest two claimed")
      let finished = try #require(claimed.first)
      try await database.storage.finishInbox(
        id: finished.id, claimToken: finished.claimToken, state: .rejected, outcome: "conformance", nowMs: 5)
      _ = try await storage.submitPurchase(submission("victim", caller: "attacker"), nowMs: 6, admission: unsigned)
      await #expect(throws: TooManyPendingSubmissions.self, "\(sut.name): a processing one still counts") {
        try await storage.submitPurchase(submission("victim", caller: "attacker"), nowMs: 7, admission: unsigned)
      }
      #expect(try await storage.submission(id: ids[2])?.submission.caller == "attacker", "\(sut.name): caller kept")
    }
  }

  /// Twenty submissions at once through two handles of the service's view (two processes) for
  /// one caller and user: exactly the bound is stored.
  public static func admissionBoundHoldsAcrossHandles(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let openFeed = try #require(
        database.openFeed, "\(sut.name) has no feed view: disable this case in its runner, saying why")
      let storages = [try await openFeed(), try await openFeed()]
      let admission = SubmissionAdmission(signed: false, maximumPending: 3)
      let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
        for attempt in 0..<20 {
          let storage = storages[attempt % 2]
          group.addTask {
            do {
              _ = try await storage.submitPurchase(
                submission("u", caller: "c"), nowMs: Int64(attempt), admission: admission)
              return true
            } catch is TooManyPendingSubmissions {
              return false
            }
          }
        }
        return try await group.reduce(into: [Bool]()) { $0.append($1) }
      }
      #expect(outcomes.filter { $0 }.count == 3, "\(sut.name): admitted \(outcomes.filter { $0 }.count)")
      #expect(try await database.storage.inboxCounts() == ["pending": 3], "\(sut.name): stored")
    }
  }
}

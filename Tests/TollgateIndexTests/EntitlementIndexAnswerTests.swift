import Testing
import TollgateCore
import TollgateIndex
import TollgateTesting

/// Queries built from strings, as the server builds them from a read's bytes.
func withQueries<Result>(
  _ queries: [(user: String, entitlement: String)], _ body: (UnsafeBufferPointer<EntitlementQuery>) -> Result
) -> Result {
  withPackedBytes(queries) { packed in
    packed.map { EntitlementQuery(userId: $0.userId, entitlement: $0.entitlement) }.withUnsafeBufferPointer(body)
  }
}

/// The answers to `queries`, asked together in batches of up to `batch` (as the server asks).
func batchAnswers(
  _ index: EntitlementIndex, _ queries: [(user: String, entitlement: String)], nowMs: Int64, batch: Int = 64
)
  -> [EntitlementAnswer]
{
  withQueries(queries) { all in
    var answers: [EntitlementAnswer] = []
    var start = 0
    while start < all.count {
      let end = min(start + batch, all.count)
      let part = UnsafeBufferPointer(rebasing: all[start..<end])
      var positions: [Int] = []
      index.answer(part, nowMs: nowMs) { position, answer in
        positions.append(position)
        answers.append(answer)
      }
      #expect(positions == Array(0..<part.count), "answers come in order, one per query")
      start = end
    }
    return answers
  }
}

@Suite("The index's answers")
struct EntitlementIndexAnswerTests {
  /// 2,000 users: some with a second source, some with a second entitlement, every seventh
  /// removed again.
  static func index() -> EntitlementIndex {
    let index = EntitlementIndex()
    for number in 0..<2_000 {
      let user = "user-\(number)"
      var records: [EntitlementRecord] = [.sample(userId: user, expiresAtMs: Int64(number) * 1_000)]
      if number.isMultiple(of: 3) {
        records.append(.sample(userId: user, source: "app_store:9\(number)", expiresAtMs: 5_000_000))
      }
      if number.isMultiple(of: 5) {
        records.append(
          .sample(
            userId: user, entitlement: "pro", source: "google_play:tok-\(number)", productId: "pro_yearly",
            expiresAtMs: 3_000_000))
      }
      index.replace(userId: user, with: records)
    }
    for number in stride(from: 0, to: 2_000, by: 7) { index.replace(userId: "user-\(number)", with: []) }
    return index
  }

  /// What Core's rule says, from the user's records: the expected answer, computed without the
  /// index's compact records.
  static func expected(_ index: EntitlementIndex, user: String, entitlement: String, nowMs: Int64) -> EntitlementAnswer
  {
    var answer = EntitlementAnswer()
    answer.evaluatedAtMs = nowMs
    guard let best = index.records(for: user).filter({ $0.entitlement == entitlement }).bestEvaluation(at: nowMs) else {
      return answer
    }
    answer.active = best.active
    answer.expiresAtMs = best.record.accessEndsAtMs
    answer.state = best.state
    answer.willRenew = best.record.willRenew
    answer.store = best.record.store
    answer.productId = best.record.productId
    answer.environment = best.record.environment
    answer.verifiedAtMs = best.record.verifiedAtMs
    answer.accessLevel = index.accessLevels.level(for: best).rawValue
    let id = best.record.storeSubscriptionId
    if let number = UInt64(id) { answer.numericStoreSubscriptionId = number } else { answer.storeSubscriptionId = id }
    return answer
  }

  @Test(
    "answered together, every query gets Core's answer, in order (users known, unknown and removed; entitlements mixed and unknown)"
  )
  func batchFollowsCoreRule() throws {
    let index = Self.index()
    let entitlements = ["premium", "premium", "pro", "gold", "premium", "pro", "pro"]
    let queries = (0..<300).map { position in
      (
        user: position % 17 == 0 ? "nobody-\(position)" : "user-\(position * 13 % 2_000)",
        entitlement: entitlements[position % entitlements.count]
      )
    }
    let nowMs: Int64 = 1_000_000
    let answers = batchAnswers(index, queries, nowMs: nowMs)
    #expect(answers.count == queries.count)
    for (answer, query) in zip(answers, queries) {
      #expect(
        answer == Self.expected(index, user: query.user, entitlement: query.entitlement, nowMs: nowMs), "\(query)")
      #expect(answer == index.answer(userId: query.user, entitlement: query.entitlement, nowMs: nowMs), "\(query)")
    }
    // The sample covers what it claims to.
    #expect(answers.contains { $0.active } && answers.contains { !$0.active && $0.expiresAtMs > 0 })
    #expect(answers.contains { $0.productId == "pro_yearly" })
    #expect(answers.contains { $0.storeSubscriptionIdText.hasPrefix("9") })
    #expect(answers.contains { $0.numericStoreSubscriptionId == nil && !$0.storeSubscriptionId.isEmpty })
    #expect(answers.contains { $0.state == nil })
  }

  @Test("access levels follow the policy set for the state at query time, as Core's rule gives them")
  func accessLevels() throws {
    let index = Self.index()
    let queries = (0..<200).map { (user: "user-\($0 * 11 % 2_000)", entitlement: $0 % 3 == 0 ? "pro" : "premium") }
    let nowMs: Int64 = 1_000_000
    #expect(Set(batchAnswers(index, queries, nowMs: nowMs).map(\.accessLevel)) == ["full", "none", ""])
    index.setAccessLevels(AccessLevelPolicy(levels: [.active: "gold", .expired: "lapsed"]))
    let answers = batchAnswers(index, queries, nowMs: nowMs)
    for (answer, query) in zip(answers, queries) {
      #expect(answer == Self.expected(index, user: query.user, entitlement: query.entitlement, nowMs: nowMs))
    }
    #expect(Set(answers.map(\.accessLevel)) == ["gold", "lapsed", ""])
    #expect(answers.allSatisfy { $0.accessLevel == ($0.state == nil ? "" : $0.active ? "gold" : "lapsed") })
    // A whole new set of records keeps the index's levels.
    index.replaceAll(with: Self.index())
    #expect(index.answer(userId: "user-1", entitlement: "premium", nowMs: 1).accessLevel == "gold")
    #expect(index.answer(userId: "nobody", entitlement: "premium", nowMs: 1).accessLevel == "")
  }

  @Test("a single query and an empty batch")
  func edges() throws {
    let index = Self.index()
    #expect(batchAnswers(index, [], nowMs: 1).isEmpty)
    let single = batchAnswers(index, [(user: "user-1", entitlement: "premium")], nowMs: 1)
    #expect(single == [index.answer(userId: "user-1", entitlement: "premium", nowMs: 1)])
    #expect(single.first?.active == true)
  }

  @Test("warming known, unknown, removed and empty user ids changes no answer")
  func warmingChangesNothing() throws {
    let index = Self.index()
    let queries =
      (0..<300).map { (user: $0 == 299 ? "" : "user-\($0 * 7 + $0 % 2)", entitlement: "premium") }
      + [(user: "user-0", entitlement: "premium"), (user: "nobody", entitlement: "pro")]
    let before = batchAnswers(index, queries, nowMs: 2_000_000)
    withPackedBytes(queries) { packed in
      packed.map(\.userId).withUnsafeBufferPointer { index.warm(userIds: $0) }
      [UnsafeRawBufferPointer]().withUnsafeBufferPointer { index.warm(userIds: $0) }
    }
    #expect(batchAnswers(index, queries, nowMs: 2_000_000) == before)
    #expect(before.contains { $0.active } && before.contains { !$0.active })
  }
}

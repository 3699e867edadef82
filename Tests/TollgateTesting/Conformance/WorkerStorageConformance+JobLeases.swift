import Testing
import TollgateCore
import TollgateWorker

/// Named leases for singleton jobs: taken by one owner at a time, renewed by it with the same
/// generation, taken over only once expired or released (the generation counting on), and every
/// write of the job fenced by its lease inside the write's transaction.
extension WorkerStorageConformance {
  /// Two handles (two workers): the second cannot take a lease the first holds and renews; once
  /// the first lets it expire, the second takes it over with the next generation. The first
  /// holder's fenced writes (webhook cursor, failure, redelivery, prune) then throw `.leaseLost`
  /// and write nothing; the new holder's land.
  public static func jobLeaseTakeOverFencesTheFormerHolder(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let first = database.storage
      let second = try await database.openHandle()
      let endpoint = "https://hooks.example.com/a"
      let name = JobLease.webhook(WebhookSettings(url: endpoint, secretEnv: "HOOKS_SECRET"))
      #expect(try await first.webhookCursor(endpoint: endpoint, nowMs: 1) == 0, "\(sut.name): a new cursor")
      for n in 0..<3 {
        let chain = subscription("lease-\(n)", user: "user-\(n)")
        try await first.apply(change(chain, events: [event("purchased", of: chain, atMs: 10)]), recompute: recompute)
      }
      let ids = try await first.events(after: 0, limit: 10).map(\.id)
      try #require(ids.count == 3, "\(sut.name): three events")

      let taken = try #require(
        try await first.takeJobLease(name: name, ownerId: "a", nowMs: 100, ttlMs: 1_000), "\(sut.name): free")
      #expect(taken.expiresAtMs == 1_100, "\(sut.name): held until now + ttl")
      #expect(
        try await second.takeJobLease(name: name, ownerId: "b", nowMs: 500, ttlMs: 1_000) == nil,
        "\(sut.name): held by another, unexpired")
      let renewed = try #require(try await first.takeJobLease(name: name, ownerId: "a", nowMs: 900, ttlMs: 1_000))
      #expect(renewed.generation == taken.generation, "\(sut.name): a renewal keeps the generation")
      #expect(renewed.expiresAtMs == 1_900, "\(sut.name): a renewal moves the expiry")
      #expect(
        try await second.takeJobLease(name: name, ownerId: "b", nowMs: 1_500, ttlMs: 1_000) == nil,
        "\(sut.name): renewed, so not expired at 1500")
      try await first.advanceWebhookCursor(endpoint: endpoint, to: ids[0], nowMs: 1_600, lease: renewed)

      // The first holder pauses past its expiry; the second takes the lease over.
      let over = try #require(
        try await second.takeJobLease(name: name, ownerId: "b", nowMs: 1_900, ttlMs: 1_000),
        "\(sut.name): expired at 1900")
      #expect(over.generation == taken.generation + 1, "\(sut.name): a take-over counts a generation")
      #expect(over.ownerId == "b")
      #expect(
        try await first.takeJobLease(name: name, ownerId: "a", nowMs: 2_000, ttlMs: 1_000) == nil,
        "\(sut.name): the former holder cannot take it back while it is held")

      // The former holder resumes: each of its fenced writes is refused, and changes nothing.
      let limit = WebhookRetryLimit(maxAttempts: 1, maxAgeMs: 3_600_000)
      await expectLeaseLost(sut, "advanceWebhookCursor") {
        try await first.advanceWebhookCursor(endpoint: endpoint, to: ids[2], nowMs: 2_000, lease: renewed)
      }
      await expectLeaseLost(sut, "recordWebhookFailure") {
        _ = try await first.recordWebhookFailure(
          endpoint: endpoint, eventId: ids[1], error: "HTTP 500", limit: limit, nowMs: 2_000, lease: renewed)
      }
      #expect(
        try await second.webhookCursor(endpoint: endpoint, nowMs: 2_000) == ids[0],
        "\(sut.name): the refused writes moved no cursor")
      #expect(
        try await second.parkedWebhookEvents(endpoint: endpoint).isEmpty,
        "\(sut.name): the refused failure parked nothing")

      // The new holder's writes land: it parks the second event (one attempt allowed), queues it
      // again; the former holder's redelivery finish is refused, the new holder's lands.
      let record = try await second.recordWebhookFailure(
        endpoint: endpoint, eventId: ids[1], error: "HTTP 500", limit: limit, nowMs: 2_100, lease: over)
      #expect(record.parked, "\(sut.name): the holder's failure parks the event")
      #expect(try await second.requestWebhookRedelivery(eventIds: [ids[1]], endpoint: endpoint) == 1)
      await expectLeaseLost(sut, "finishWebhookRedelivery") {
        try await first.finishWebhookRedelivery(
          endpoint: endpoint, eventId: ids[1], error: nil, limit: limit, retryAtMs: 0, nowMs: 2_200, lease: renewed)
      }
      #expect(
        try await second.dueWebhookRedeliveries(endpoint: endpoint, nowMs: 2_200, limit: 10).map(\.eventId) == [ids[1]],
        "\(sut.name): the refused finish left the redelivery queued")
      try await second.finishWebhookRedelivery(
        endpoint: endpoint, eventId: ids[1], error: nil, limit: limit, retryAtMs: 0, nowMs: 2_200, lease: over)
      #expect(try await second.parkedWebhookEvents(endpoint: endpoint).isEmpty, "\(sut.name): redelivered")
      try await second.advanceWebhookCursor(endpoint: endpoint, to: ids[2], nowMs: 2_300, lease: over)
      #expect(try await first.webhookCursor(endpoint: endpoint, nowMs: 2_300) == ids[2])

      // Housekeeping's prune is fenced the same way: the former holder deletes nothing.
      let keeper = try #require(
        try await first.takeJobLease(name: JobLease.housekeeping, ownerId: "a", nowMs: 0, ttlMs: 10))
      let keeperNow = try #require(
        try await second.takeJobLease(name: JobLease.housekeeping, ownerId: "b", nowMs: 10, ttlMs: 1_000))
      let later: Int64 = 1_000_000_000
      let plan = { (lease: JobLease) in
        PrunePlan(
          finishedInboxBeforeMs: later, changeFeedBeforeMs: later, eventsBeforeMs: later,
          eventsDeliveredThroughId: ids[2], lease: lease)
      }
      await expectLeaseLost(sut, "prune") { _ = try await first.prune(plan(keeper)) }
      #expect(try await second.events(after: 0, limit: 10).count == 3, "\(sut.name): the refused prune deleted nothing")
      let counts = try await second.prune(plan(keeperNow))
      // (A storage may keep the newest event, so that its id is never handed out again.)
      #expect(counts.events >= 2, "\(sut.name): the holder's prune deletes the delivered events")
      #expect(try await second.events(after: 0, limit: 10).count == 3 - counts.events)
    }
  }

  /// Many handles take one free lease at once: exactly one gets it. Released, it is free to the
  /// next taker (the generation counting on), and the released holding's writes are refused.
  public static func jobLeaseOneHolderAtOnce(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let handles = try await database.handles(6)
      let name = JobLease.sweep(.googlePlay)
      let granted = try await withThrowingTaskGroup(of: JobLease?.self) { group in
        for (n, handle) in handles.enumerated() {
          group.addTask { try await handle.takeJobLease(name: name, ownerId: "w\(n)", nowMs: 100, ttlMs: 60_000) }
        }
        var granted: [JobLease] = []
        for try await lease in group { if let lease { granted.append(lease) } }
        return granted
      }
      try #require(granted.count == 1, "\(sut.name): one of six concurrent takes wins, not \(granted.count)")
      let holder = granted[0]
      let other = handles[0]
      #expect(
        try await other.takeJobLease(name: name, ownerId: "late", nowMs: 200, ttlMs: 60_000) == nil,
        "\(sut.name): held")
      try await database.storage.releaseJobLease(holder)
      let next = try #require(
        try await other.takeJobLease(name: name, ownerId: "late", nowMs: 300, ttlMs: 60_000),
        "\(sut.name): released, so free")
      #expect(next.generation == holder.generation + 1, "\(sut.name): the generation counts on after a release")
      // Releasing a holding that is no longer current changes nothing.
      try await database.storage.releaseJobLease(holder)
      #expect(
        try await other.takeJobLease(name: name, ownerId: "third", nowMs: 400, ttlMs: 60_000) == nil,
        "\(sut.name): a stale release freed nothing")
      try await database.storage.advanceWebhookCursor(endpoint: "e", to: 0, nowMs: 400, lease: next)
      await expectLeaseLost(sut, "advanceWebhookCursor after release") {
        try await database.storage.advanceWebhookCursor(endpoint: "e", to: 0, nowMs: 400, lease: holder)
      }
    }
  }

  static func expectLeaseLost(
    _ sut: WorkerStorageUnderTest, _ what: String, _ write: () async throws -> Void
  ) async {
    do {
      try await write()
      Issue.record("\(sut.name): \(what) with a lost job lease was written")
    } catch let conflict as StorageConflict {
      #expect(conflict.kind == .leaseLost, "\(sut.name): \(what): \(conflict)")
    } catch {
      Issue.record("\(sut.name): \(what) threw \(error), not StorageConflict(.leaseLost)")
    }
  }
}

import Testing
import TollgateCore
import TollgateStorage
import TollgateWorker

/// Request ids (issue 29, v22-request-ids): the id of the request that made an inbox item is
/// stored with it and handed back with every claim of it, and the events a change writes keep
/// theirs, so the worker logs it and its webhooks send it.
extension WorkerStorageConformance {
  /// A notification's request id comes back with each claim of its item (a duplicate keeps the
  /// first's); one stored without an id reads as none; on another handle, the same.
  public static func notificationRequestIds(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let first = try await storage.storeNotification(
        route: "app_store.v2", dedupeKey: "n1", payload: [1], requestId: "req-note.1", nowMs: 1)
      let again = try await storage.storeNotification(
        route: "app_store.v2", dedupeKey: "n1", payload: [1], requestId: "req-other", nowMs: 2)
      #expect(again.duplicate && again.id == first.id, "\(sut.name)")
      _ = try await storage.storeNotification(route: "app_store.v2", dedupeKey: "n2", payload: [2], nowMs: 3)
      let other = try await database.openHandle()
      let claimed = try await other.claimInbox(nowMs: 10, limit: 10, leaseMs: 5)
      #expect(claimed.map(\.requestId) == ["req-note.1", nil], "\(sut.name): \(claimed.map(\.requestId))")
      // A claim after the lease ran out hands the same id out again.
      let reclaimed = try await storage.claimInbox(nowMs: 100, limit: 10, leaseMs: 5)
      #expect(reclaimed.map(\.requestId) == ["req-note.1", nil], "\(sut.name)")
    }
  }

  /// A submission's request id, stored by the service's view, comes back with the worker's claim.
  public static func submissionRequestIds(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let openFeed = try #require(
        database.openFeed, "\(sut.name) has no feed view: disable this case in its runner, saying why")
      let service = try await openFeed()
      var submission = PurchaseSubmission(userId: "alice", store: .appStore, receipt: "2000000001")
      submission.requestId = "abc-123"
      _ = try await service.submitPurchase(submission, nowMs: 1)
      submission.requestId = nil
      _ = try await service.submitPurchase(submission, nowMs: 2)
      let claimed = try await database.storage.claimInbox(nowMs: 10, limit: 10, leaseMs: 5)
      #expect(claimed.map(\.requestId) == ["abc-123", nil], "\(sut.name): \(claimed.map(\.requestId))")
      await service.close()
    }
  }

  /// Events keep the request id they were written with, read back by every read of events (the
  /// stream, one event, a user's, a chain's); an event written without one has none.
  public static func eventRequestIds(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      let chain = subscription("otx-r", user: "alice")
      var purchased = event("purchased", of: chain, atMs: 10)
      purchased.requestId = "abc-123"
      let renewed = event("renewed", of: chain, atMs: 11)
      _ = try await storage.apply(change(chain, events: [purchased, renewed]), recompute: recompute)
      let stored = try await storage.events(after: 0, limit: 10)
      #expect(stored.map(\.event.requestId) == ["abc-123", nil], "\(sut.name)")
      let first = try #require(stored.first)
      #expect(try await storage.event(id: first.id)?.event.requestId == "abc-123", "\(sut.name)")
      #expect(try await storage.events(userId: "alice").map(\.requestId) == ["abc-123", nil], "\(sut.name)")
      #expect(
        try await storage.events(store: .appStore, purchaseId: "otx-r").map(\.requestId) == ["abc-123", nil],
        "\(sut.name)")
      let other = try await database.openHandle()
      #expect(try await other.events(after: 0, limit: 10).map(\.event.requestId) == ["abc-123", nil], "\(sut.name)")
    }
  }
}

import Testing
import TollgateCore
import TollgateWorker

/// Support lookups (issue 28, `WorkerStorage.purchases(matching:store:kinds:limit:)` and
/// `events(store:purchaseId:)`): every identifier kind finds its chain, exactly, in the contract's
/// order (bytes, never a collation), with the bound user, none for an unbound chain and the
/// erasure time for an erased one; a Google Play order id finds the first order, every renewal
/// and every line item of its order; `limit` keeps the first matches of that order.
extension WorkerStorageConformance {
  /// A chain of `store` whose transactions are `transactionIds` (in the store's own forms).
  public static func chain(
    _ purchaseId: String, user: String?, store: Store, transactionIds: [String], storeUserId: String? = nil,
    appAccountToken: String? = nil, expiresAtMs: Int64 = 1_000_000
  ) -> StoredSubscription {
    var chain = subscription(purchaseId, user: user, expiresAtMs: expiresAtMs, store: store)
    chain.history.transactions = transactionIds.enumerated().map { index, id in
      StoreTransaction(
        transactionId: id, productId: "monthly", purchaseDateMs: Int64(index) * 1_000, expiresDateMs: expiresAtMs)
    }
    chain.storeUserId = storeUserId
    chain.appAccountToken = appAccountToken
    return chain
  }

  /// Order ids of one Google Play order: the first order and two renewals.
  static let googleOrder = "GPA.3372-2936-4337-51089"
  /// An order of two line items (stored as `order|product`).
  static let splitOrder = "GPA.1200-3400-5600-78901"

  /// Stores the chains every lookup case reads.
  static func storeLookupChains(_ storage: any WorkerStorage) async throws {
    let chains = [
      chain("1000001", user: "ana", store: .appStore, transactionIds: ["1000001", "1000002"]),
      chain(
        "tok-renewing", user: "bo", store: .googlePlay,
        transactionIds: [googleOrder, "\(googleOrder)..0", "\(googleOrder)..1"]),
      chain(
        "tok-split", user: nil, store: .googlePlay,
        transactionIds: ["\(splitOrder)|p.monthly", "\(splitOrder)|p.yearly"]),
      chain("tok-no-order", user: "bo", store: .googlePlay, transactionIds: ["tok-no-order|p.monthly"]),
      chain(
        "amzn-r1", user: "cy", store: .amazon, transactionIds: ["amzn-r1", "amzn-r1#trial"],
        storeUserId: "amzn1.account.CY"),
      chain("shared", user: "ana", store: .googlePlay, transactionIds: ["GPA.0000-0000-0000-00001"]),
      chain("shared", user: "cy", store: .appStore, transactionIds: ["3000001"]),
    ]
    for chain in chains { try await storage.apply(change(chain), recompute: recompute) }
  }

  /// Each kind of stored identifier finds its chain with the user bound to it, exactly as stored.
  public static func lookupByEachKind(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      try await storeLookupChains(database.storage)
      let storage = try await database.openHandle()
      func find(_ id: String, _ kinds: PurchaseIdentifierKinds = .all, store: Store? = nil, limit: Int = 100)
        async throws -> [String]
      {
        try await storage.purchases(matching: id, store: store, kinds: kinds, limit: limit).map {
          "\($0.store.rawValue)/\($0.purchaseId)/\($0.matchedAs.rawValue)/\($0.transactionId ?? "-")/\($0.userId ?? "-")"
        }
      }
      // An App Store originalTransactionId is the chain and its first transaction: chain first.
      #expect(
        try await find("1000001")
          == ["app_store/1000001/purchase_id/-/ana", "app_store/1000001/transaction_id/1000001/ana"], "\(sut.name)")
      #expect(try await find("1000002") == ["app_store/1000001/transaction_id/1000002/ana"], "\(sut.name)")
      #expect(try await find("1000001", .purchaseId) == ["app_store/1000001/purchase_id/-/ana"], "\(sut.name)")
      // A purchase token; the Amazon user id; an Amazon receipt (chain and transaction).
      #expect(try await find("tok-renewing") == ["google_play/tok-renewing/purchase_id/-/bo"], "\(sut.name)")
      #expect(try await find("amzn1.account.CY") == ["amazon/amzn-r1/store_user_id/-/cy"], "\(sut.name)")
      #expect(
        try await find("amzn-r1")
          == ["amazon/amzn-r1/purchase_id/-/cy", "amazon/amzn-r1/transaction_id/amzn-r1/cy"], "\(sut.name)")
      // Exact ids only: case, spaces and prefixes find nothing.
      for near in ["1000001 ", "100000", "TOK-RENEWING", googleOrder.lowercased(), "amzn1.account.cy", ""] {
        #expect(try await find(near).isEmpty, "\(sut.name): \(near)")
      }
      #expect(try await find("1000001", []).isEmpty, "\(sut.name): no kinds, no matches")
      // The same id in two stores: every store without one, ordered by store; one store with one.
      #expect(
        try await find("shared") == ["app_store/shared/purchase_id/-/cy", "google_play/shared/purchase_id/-/ana"],
        "\(sut.name)")
      #expect(try await find("shared", store: .googlePlay) == ["google_play/shared/purchase_id/-/ana"], "\(sut.name)")
      #expect(try await find("1000001", store: .googlePlay).isEmpty, "\(sut.name)")
      // The light row: product, state, access end and environment as stored.
      let match = try #require(
        try await storage.purchases(matching: "1000002", store: nil, kinds: .all, limit: 5).first)
      #expect(match.productId == "monthly" && match.state == .active, "\(sut.name)")
      #expect(
        match.accessEndsAtMs == 1_000_000 && match.environment == .sandbox && match.erasedAtMs == nil, "\(sut.name)")
    }
  }

  /// A Google Play order id, given as the first order, a renewal or a line item, finds the first
  /// order, every renewal `..N` and every line item `|product` of its order, in byte order, and
  /// `limit` keeps the first of them; an id stored without an order id is no order id.
  public static func lookupGoogleOrderIds(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      try await storeLookupChains(database.storage)
      let storage = database.storage
      func find(_ id: String, _ kinds: PurchaseIdentifierKinds = .orderId, limit: Int = 100) async throws
        -> [String]
      {
        try await storage.purchases(matching: id, store: nil, kinds: kinds, limit: limit).map {
          "\($0.purchaseId)/\($0.matchedAs.rawValue)/\($0.transactionId ?? "-")"
        }
      }
      let renewals = [
        "tok-renewing/order_id/\(googleOrder)", "tok-renewing/order_id/\(googleOrder)..0",
        "tok-renewing/order_id/\(googleOrder)..1",
      ]
      for given in [googleOrder, "\(googleOrder)..0", "\(googleOrder)..1", "\(googleOrder)..7", "\(googleOrder)|x"] {
        #expect(try await find(given) == renewals, "\(sut.name): \(given)")
      }
      #expect(try await find(googleOrder, limit: 2) == Array(renewals.prefix(2)), "\(sut.name)")
      // As a transaction id, only the exact one; with every kind, the exact one comes first.
      #expect(try await find("\(googleOrder)..1", .transactionId) == ["tok-renewing/transaction_id/\(googleOrder)..1"])
      #expect(
        try await find("\(googleOrder)..1", .all) == ["tok-renewing/transaction_id/\(googleOrder)..1"] + renewals,
        "\(sut.name)")
      #expect(
        try await find(splitOrder)
          == ["tok-split/order_id/\(splitOrder)|p.monthly", "tok-split/order_id/\(splitOrder)|p.yearly"],
        "\(sut.name)")
      #expect(try await find("tok-no-order|p.monthly").isEmpty, "\(sut.name): no order id there")
      #expect(try await find("tok-no-order|p.monthly", .transactionId).count == 1, "\(sut.name)")
      #expect(
        try await storage.purchases(matching: googleOrder, store: .appStore, kinds: .orderId, limit: 10).isEmpty,
        "\(sut.name): order ids are Google Play's")
    }
  }

  /// A chain nobody is bound to has no user; an erased chain carries when it was erased, and a
  /// later write that binds it again (a claim with fresh proof) clears that.
  public static func lookupUnboundAndErasedChains(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      try await storeLookupChains(database.storage)
      let storage = database.storage
      let split = try await storage.purchases(matching: "tok-split", store: nil, kinds: .purchaseId, limit: 5)
      #expect(split.count == 1 && split.first?.userId == nil && split.first?.erasedAtMs == nil, "\(sut.name)")
      _ = try await storage.eraseUser("ana", dryRun: false, nowMs: 777)
      let erased = try await storage.purchases(matching: "1000001", store: nil, kinds: .all, limit: 5)
      #expect(erased.count == 2, "\(sut.name): the chain stays")
      #expect(erased.allSatisfy { $0.userId == nil && $0.erasedAtMs == 777 }, "\(sut.name)")
      var chain = try #require(try await storage.subscription(store: .appStore, purchaseId: "1000001"))
      #expect(chain.erasedAtMs == 777 && chain.userId == nil, "\(sut.name): read back whole too")
      let version = chain.version
      chain.userId = "dee"
      chain.erasedAtMs = nil
      try await storage.apply(change(chain, expectedVersion: version), recompute: recompute)
      let bound = try await storage.purchases(matching: "1000001", store: .appStore, kinds: .purchaseId, limit: 5)
      #expect(bound.map(\.userId) == ["dee"] && bound.first?.erasedAtMs == nil, "\(sut.name)")
    }
  }

  /// Every event of one chain, whoever it was bound to when written, oldest first; none of a
  /// chain of the same id in another store.
  public static func eventsOfOneChain(_ sut: WorkerStorageUnderTest) async throws {
    try await sut.withDatabase { database in
      let storage = database.storage
      var chain = subscription("moving", user: "ana")
      try await storage.apply(change(chain, events: [event("purchased", of: chain, atMs: 10)]), recompute: recompute)
      let other = subscription("moving", user: "cy", store: .googlePlay)
      try await storage.apply(change(other, events: [event("purchased", of: other, atMs: 11)]), recompute: recompute)
      chain.userId = "bo"
      var moved = event("transferred", of: chain, atMs: 20)
      moved.detail = "from ana under last_claim_wins"
      try await storage.apply(
        change(chain, events: [moved], alsoRecompute: "ana", expectedVersion: 1), recompute: recompute)
      let handle = try await database.openHandle()
      let events = try await handle.events(store: .appStore, purchaseId: "moving")
      #expect(events.map(\.kind) == ["purchased", "transferred"], "\(sut.name)")
      #expect(events.map(\.userId) == ["ana", "bo"] && events.map(\.atMs) == [10, 20], "\(sut.name)")
      #expect(events.last?.detail == "from ana under last_claim_wins", "\(sut.name)")
      #expect(try await handle.events(store: .googlePlay, purchaseId: "moving").map(\.userId) == ["cy"])
      #expect(try await handle.events(store: .amazon, purchaseId: "moving").isEmpty, "\(sut.name)")
    }
  }
}

import TollgateCore
import TollgateWorker

/// One purchase a lookup found, with the user it is bound to.
public struct LookupMatch: Sendable, Hashable {
  public var store: Store
  /// What the identifier was taken as when it matched.
  public var matchedAs: StoreIdentifierKind
  /// The chain (originalTransactionId / purchaseToken / receiptId).
  public var purchaseId: String
  /// The transaction the identifier named (transaction and order lookups); nil for a chain's id.
  public var transactionId: String?
  public var productId: String
  /// The user the chain is bound to; nil when bound to nobody (or never verified).
  public var userId: String?
  /// As last evaluated; nil for a purchase Tollgate never verified.
  public var state: SubscriptionState?
  /// `Int64.max` for a lifetime purchase; nil for one Tollgate never verified.
  public var accessEndsAtMs: Int64?
  public var environment: StoreEnvironment?
  /// False: the store lists the purchase (an App Store order) but Tollgate never verified it.
  public var known: Bool
  /// When an erase unbound the chain.
  public var erasedAtMs: Int64?
}

/// What a lookup found, and what it could not ask.
public struct LookupResult: Sendable, Hashable {
  public var matches: [LookupMatch]
  /// Sentences about what was not asked or could not be (no App Store configured, Apple down).
  public var notes: [String]
}

extension SupportDesk {
  /// The purchases `identifier` names, taken as `kind`, or as every kind its shape allows
  /// (`StoreIdentifier.classify`) when nil. Stored identifiers are asked of storage; an App Store
  /// order id, which Tollgate never stores, is asked of every `OrderLookupGateway` when `kind`
  /// says so, or when no kind was given, nothing stored matched and the identifier is shaped like
  /// one. Each order line maps back to the chain Tollgate stores (`known`), or comes back with
  /// `known = false`. The App Store failing is a note beside the stored matches, and
  /// `SupportError.orderLookupUnavailable` only when nothing else was found.
  public func lookUp(_ identifier: String, kind: StoreIdentifierKind?) async throws -> LookupResult {
    if let problem = StoreIdentifier.problem(identifier) { throw SupportError(.invalidIdentifier, problem) }
    var result = LookupResult(matches: [], notes: [])
    if let kind, kind != .appStoreOrderId {
      let searches = Self.searches(for: kind)
      result.matches = try await stored(identifier, store: kind.store, kinds: searches) { _ in kind }
    } else if kind == nil {
      result.matches = try await stored(identifier, store: nil, kinds: .all) { Self.identifierKind(of: $0) }
    }
    let asksApple =
      kind == .appStoreOrderId
      || (kind == nil && result.matches.isEmpty && StoreIdentifier.classify(identifier).contains(.appStoreOrderId))
    if asksApple { try await lookUpOrder(identifier, into: &result) }
    return result
  }

  /// What storage compares for each kind.
  static func searches(for kind: StoreIdentifierKind) -> PurchaseIdentifierKinds {
    switch kind {
    case .appStoreTransactionId: .transactionId
    case .appStoreOriginalTransactionId, .googlePlayPurchaseToken: .purchaseId
    // The base order finds the first order, every renewal `..N` and every line item.
    case .googlePlayOrderId: .orderId
    // A receipt is a chain, and its trial term a transaction of it (`receiptId#trial`).
    case .amazonReceiptId: [.purchaseId, .transactionId]
    case .amazonUserId: .storeUserId
    case .appStoreOrderId: []
    }
  }

  /// The kind a stored match was found as, in the support vocabulary.
  static func identifierKind(of match: PurchaseMatch) -> StoreIdentifierKind {
    switch (match.store, match.matchedAs) {
    case (.appStore, .transactionId): .appStoreTransactionId
    case (.appStore, _): .appStoreOriginalTransactionId
    case (.googlePlay, .purchaseId): .googlePlayPurchaseToken
    case (.googlePlay, _): .googlePlayOrderId
    case (.amazon, .storeUserId): .amazonUserId
    case (_, _): .amazonReceiptId
    }
  }

  /// Stored matches, one per transaction named (a chain's own id counts as its first
  /// transaction's: an App Store original transaction id, an Amazon receipt id), in storage's order.
  private func stored(
    _ identifier: String, store: Store?, kinds: PurchaseIdentifierKinds,
    as kindOf: (PurchaseMatch) -> StoreIdentifierKind
  ) async throws -> [LookupMatch] {
    let found = try await storage.purchases(matching: identifier, store: store, kinds: kinds, limit: Self.lookupLimit)
    var seen = Set<String>()
    var matches: [LookupMatch] = []
    for match in found where match.store != .promotional {
      let key = "\(match.store.rawValue)|\(match.purchaseId)|\(match.transactionId ?? match.purchaseId)"
      guard seen.insert(key).inserted else { continue }
      matches.append(Self.match(match, as: kindOf(match), transactionId: match.transactionId))
    }
    return matches
  }

  static func match(_ match: PurchaseMatch, as kind: StoreIdentifierKind, transactionId: String?) -> LookupMatch {
    LookupMatch(
      store: match.store, matchedAs: kind, purchaseId: match.purchaseId, transactionId: transactionId,
      productId: match.productId, userId: match.userId, state: match.state, accessEndsAtMs: match.accessEndsAtMs,
      environment: match.environment, known: true, erasedAtMs: match.erasedAtMs)
  }

  /// Asks every order-lookup gateway about `orderId` and adds what each line maps to.
  private func lookUpOrder(_ orderId: String, into result: inout LookupResult) async throws {
    guard !orderLookups.isEmpty else {
      result.notes.append(
        "App Store order ids are asked of the App Store Server API, and this server has no appStore section "
          + "in its --config: look the order up where the worker's config is (tollgate lookup --database --config)")
      return
    }
    var failure: StoreFailure?
    for gateway in orderLookups {
      let lines: [OrderLine]
      do {
        lines = try await gateway.lookUpOrder(orderId)
      } catch {
        failure = error
        result.notes.append("the \(gateway.store.rawValue) order lookup could not be asked: \(error.message)")
        continue
      }
      for line in lines {
        result.matches.append(try await match(line, store: gateway.store))
      }
    }
    if let failure, result.matches.isEmpty {
      throw SupportError(
        .orderLookupUnavailable, "the App Store could not be asked about the order (\(failure.message)); retry")
    }
  }

  /// The stored chain an order line names, by its transaction, else by its chain; `known = false`
  /// when Tollgate stores neither.
  private func match(_ line: OrderLine, store: Store) async throws -> LookupMatch {
    let byTransaction = try await storage.purchases(
      matching: line.transactionId, store: store, kinds: .transactionId, limit: 1)
    let byChain =
      byTransaction.isEmpty
      ? try await storage.purchases(
        matching: line.originalTransactionId, store: store, kinds: .purchaseId, limit: 1) : []
    if let stored = byTransaction.first ?? byChain.first {
      return Self.match(stored, as: .appStoreOrderId, transactionId: line.transactionId)
    }
    return LookupMatch(
      store: store, matchedAs: .appStoreOrderId, purchaseId: line.originalTransactionId,
      transactionId: line.transactionId, productId: line.productId, userId: nil, state: nil, accessEndsAtMs: nil,
      environment: line.environment, known: false, erasedAtMs: nil)
  }
}

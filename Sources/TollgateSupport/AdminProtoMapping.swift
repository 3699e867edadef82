import TollgateContract
import TollgateCore
import TollgateServer
import TollgateWorker

/// The support desk's answers as the admin messages of proto/tollgate.proto: times as RFC 3339
/// text (`ISO8601Text`), Core's raw strings as the proto's enums. Core's enums themselves map
/// through TollgateServer's one set (`init(_:)`); the `support` inits take what the desk holds (nil,
/// or a stored raw name) on top.
extension Tollgate_V1_Store {
  /// A stored store name (`app_store`, ...); unspecified for anything else.
  init(support raw: String) {
    self = Store(rawValue: raw).map { Self($0) } ?? .unspecified
  }
}

extension Tollgate_V1_SubscriptionState {
  init(support state: SubscriptionState?) { self = state.map { Self($0) } ?? .unspecified }

  init(support raw: String?) { self.init(support: raw.flatMap(SubscriptionState.init(rawValue:))) }
}

extension Tollgate_V1_Environment {
  init(support environment: StoreEnvironment?) { self = environment.map { Self($0) } ?? .unspecified }
}

extension Tollgate_V1_IdentifierKind {
  init(support kind: StoreIdentifierKind) {
    switch kind {
    case .appStoreTransactionId: self = .appStoreTransactionID
    case .appStoreOriginalTransactionId: self = .appStoreOriginalTransactionID
    case .appStoreOrderId: self = .appStoreOrderID
    case .googlePlayPurchaseToken: self = .googlePlayPurchaseToken
    case .googlePlayOrderId: self = .googlePlayOrderID
    case .amazonReceiptId: self = .amazonReceiptID
    case .amazonUserId: self = .amazonUserID
    }
  }

  /// The support kind; nil for unspecified (any kind) and for a value this version does not know.
  var support: StoreIdentifierKind? {
    switch self {
    case .appStoreTransactionID: .appStoreTransactionId
    case .appStoreOriginalTransactionID: .appStoreOriginalTransactionId
    case .appStoreOrderID: .appStoreOrderId
    case .googlePlayPurchaseToken: .googlePlayPurchaseToken
    case .googlePlayOrderID: .googlePlayOrderId
    case .amazonReceiptID: .amazonReceiptId
    case .amazonUserID: .amazonUserId
    case .unspecified, .UNRECOGNIZED: nil
    }
  }
}

extension Tollgate_V1_PurchaseMatch {
  init(_ match: LookupMatch) {
    self.init()
    store = .init(match.store)
    matchedAs = .init(support: match.matchedAs)
    storeSubscriptionID = match.purchaseId
    transactionID = match.transactionId ?? ""
    productID = match.productId
    userID = match.userId ?? ""
    state = .init(support: match.state)
    accessEndsAt = ISO8601Text.text(ms: match.accessEndsAtMs)
    environment = .init(support: match.environment)
    known = match.known
    erasedAt = ISO8601Text.text(ms: match.erasedAtMs)
  }
}

extension Tollgate_V1_TimelineEntry {
  init(_ entry: Timeline.Entry) {
    self.init()
    at = ISO8601Text.text(ms: entry.atMs)
    until = ISO8601Text.text(ms: entry.untilMs)
    kind = entry.kind.rawValue
    store = .init(entry.store)
    storeSubscriptionID = entry.purchaseId
    productID = entry.productId ?? ""
    transactionID = entry.transactionId ?? ""
    signedAt = ISO8601Text.text(ms: entry.signedAtMs)
    state = .init(support: entry.state)
    detail = entry.detail ?? ""
    source = entry.source.rawValue
  }
}

extension Tollgate_V1_GetTimelineResponse {
  init(_ timeline: Timeline) {
    self.init()
    userID = timeline.userId
    evaluatedAt = ISO8601Text.text(ms: timeline.evaluatedAtMs)
    entries = timeline.entries.map(Tollgate_V1_TimelineEntry.init)
  }
}

extension Tollgate_V1_ExplainResponse {
  init(_ explanation: Explanation) {
    self.init()
    userID = explanation.userId
    entitlement = explanation.entitlement
    evaluatedAt = ISO8601Text.text(ms: explanation.evaluatedAtMs)
    active = explanation.active
    state = .init(support: explanation.state)
    sources = explanation.sources.map(Tollgate_V1_ExplainSource.init)
    recentEvents = explanation.recentEvents.map { event in
      var message = Tollgate_V1_ExplainEvent()
      message.at = ISO8601Text.text(ms: event.atMs)
      message.kind = event.kind
      message.storeSubscriptionID = event.purchaseId
      message.state = .init(support: event.state)
      message.detail = event.detail ?? ""
      return message
    }
    transferredAway = explanation.transferredAway.map { moved in
      var message = Tollgate_V1_TransferredAway()
      message.store = .init(support: moved.store)
      message.storeSubscriptionID = moved.purchaseId
      message.productID = moved.productId
      message.toUserID = moved.toUserId
      message.at = ISO8601Text.text(ms: moved.atMs)
      message.detail = moved.detail ?? ""
      return message
    }
    rejectedSubmissions = explanation.rejectedSubmissions.map { rejected in
      var message = Tollgate_V1_RejectedSubmission()
      message.store = .init(support: rejected.store)
      message.productID = rejected.productId ?? ""
      message.reason = rejected.reason
      message.receivedAt = ISO8601Text.text(ms: rejected.receivedAtMs)
      message.rejectedAt = ISO8601Text.text(ms: rejected.rejectedAtMs)
      return message
    }
  }
}

extension Tollgate_V1_ExplainSource {
  init(_ source: Explanation.Source) {
    self.init()
    self.source = source.source
    store = .init(support: source.store)
    productID = source.productId
    active = source.active
    state = .init(support: source.state)
    accessEndsAt = ISO8601Text.text(ms: source.accessEndsAtMs)
    expiresAt = ISO8601Text.text(ms: source.expiresAtMs)
    willRenew = source.willRenew
    environment = .init(support: StoreEnvironment(rawValue: source.environment))
    verifiedAt = ISO8601Text.text(ms: source.verifiedAtMs)
    rule = source.rule
    evidenceSource = source.evidenceSource ?? ""
    payloads = source.payloads.map { payload in
      var message = Tollgate_V1_ExplainPayload()
      message.kind = payload.kind
      message.id = payload.id
      message.sha256 = payload.sha256
      message.signedAt = ISO8601Text.text(ms: payload.signedAtMs)
      return message
    }
    grantNote = source.grantNote ?? ""
    replaces = source.replaces
    decides = source.decides
    checksStoppedReason = source.checksStopped?.reason ?? ""
    checksStoppedAt = ISO8601Text.text(ms: source.checksStopped?.atMs)
  }
}

extension Tollgate_V1_EraseUserResponse {
  init(_ counts: ErasureCounts, dryRun: Bool) {
    self.init()
    self.dryRun = dryRun
    subscriptionsUnbound = UInt32(clamping: counts.subscriptionsUnbound)
    grants = UInt32(clamping: counts.grants)
    events = UInt32(clamping: counts.events)
    eventsScrubbed = UInt32(clamping: counts.eventsScrubbed)
    submissions = UInt32(clamping: counts.submissions)
    entitlementRecords = UInt32(clamping: counts.entitlementRecords)
  }
}

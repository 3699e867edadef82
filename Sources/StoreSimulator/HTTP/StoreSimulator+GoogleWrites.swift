import Foundation
import Hummingbird
import NIOCore
import TollgateCrypto

/// The Android Publisher API calls that change something or list: acknowledge, consume,
/// `subscriptionsv2.revoke`, and `voidedpurchases.list` with token pagination.
extension StoreSimulator {
  static let voidedPageLimit = 1_000

  func acknowledge(_ call: GoogleCall, subscription: Bool) -> StoreAnswer {
    state.withLock { state in
      let now = state.core.nowMs
      let found: (String?, Int64?, String?) =
        subscription
        ? state.google.subscriptions[call.token].map { ($0.packageName, $0.endedAtMs, $0.productId) } ?? (nil, nil, nil)
        : state.google.products[call.token].map { ($0.packageName, $0.endedAtMs, $0.productId) } ?? (nil, nil, nil)
      if let refusal = googleLookup(packageOf: found.0, endedAtMs: found.1, call, nowMs: now) { return refusal }
      guard found.2 == call.productId else {
        return .googleError(400, "The product id does not match the purchase token.", reason: "productNotOwnedByUser")
      }
      if !subscription, state.google.products[call.token]?.purchaseState != 0 {
        return .googleError(
          400, "The purchase is not in a valid state to perform the desired operation.", reason: "invalidPurchaseState")
      }
      try? state.google.acknowledge(call.token)
      return StoreAnswer(headers: [.contentType: "application/json"], body: [])
    }
  }

  func consume(_ call: GoogleCall) -> StoreAnswer {
    state.withLock { state in
      guard var product = state.google.products[call.token] else { return Self.tokenNotFound }
      if let refusal = googleLookup(
        packageOf: product.packageName, endedAtMs: product.endedAtMs, call, nowMs: state.core.nowMs)
      {
        return refusal
      }
      product.consumed = true
      product.acknowledged = true
      state.google.save(product)
      return StoreAnswer(headers: [.contentType: "application/json"], body: [])
    }
  }

  /// `purchases.subscriptionsv2.revoke`: refunds (`revocationContext.proratedRefund` or
  /// `fullRefund`) and ends access now.
  func revoke(_ call: GoogleCall) async -> StoreAnswer {
    var request = call.request
    let body = (try? await request.collectBody(upTo: 64 << 10)).flatMap {
      try? JSONSerialization.jsonObject(with: Data($0.readableBytesView)) as? [String: Any]
    }
    guard let context = body?["revocationContext"] as? [String: Any],
      context["proratedRefund"] != nil || context["fullRefund"] != nil || context["itemBasedRefund"] != nil
    else {
      return .googleError(400, "revocationContext is required.", reason: "required", domain: "global")
    }
    do {
      return try await mutate { (state: inout State) throws(StoreSimulatorError) -> StoreAnswer in
        let subscription = state.google.subscriptions[call.token]
        if let refusal = googleLookup(
          packageOf: subscription?.packageName, endedAtMs: subscription?.endedAtMs, call, nowMs: state.core.nowMs)
        {
          return refusal
        }
        if subscription?.state == .expired {
          return .googleError(
            400, "The subscription is not in a valid state to be revoked.", reason: "invalidPurchaseState")
        }
        state.google.refundSubscription(call.token, reason: 0, source: 1, revoke: true, core: &state.core)
        return .json([String: String]())
      }
    } catch {
      return .googleError(500, "Internal error encountered.", reason: "backendError", domain: "global")
    }
  }

  /// `purchases.voidedpurchases.list`: voided in [`startTime`, `endTime`] (ms; default the last 30
  /// virtual days), oldest first; `type=1` includes subscriptions; `maxResults` per page (≤ 1000),
  /// `token` = the previous page's `tokenPagination.nextPageToken`.
  func voidedPurchases(_ call: GoogleCall) -> StoreAnswer {
    let query = call.request.uri.queryParameters
    let invalid = { (message: String) in StoreAnswer.googleError(400, message, reason: "invalid", domain: "global") }
    let number = { (name: String) -> Int64?? in
      guard let text = query.get(name) else { return .some(nil) }
      return Int64(text).map { .some($0) } ?? nil
    }
    guard let start = number("startTime"), let end = number("endTime"), let max = number("maxResults"),
      let type = number("type")
    else { return invalid("Invalid value: startTime, endTime, maxResults and type are integers.") }
    let pageSize = Int(max ?? Int64(Self.voidedPageLimit))
    guard pageSize > 0, pageSize <= Self.voidedPageLimit else { return invalid("maxResults must be 1…1000.") }
    guard type == nil || type == 0 || type == 1 else { return invalid("type must be 0 or 1.") }
    var offset = 0
    if let token = query.get("token") {
      guard let decoded = Base64URL.decode(token).map({ String(decoding: $0, as: UTF8.self) }),
        decoded.hasPrefix("offset:"), let value = Int(decoded.dropFirst(7)), value >= 0
      else { return invalid("Invalid pagination token.") }
      offset = value
    }
    if let start, let end, start > end { return invalid("Start time must be before end time.") }
    return state.withLock { state in
      // A start after the virtual now (a caller on another clock) lists nothing rather than failing.
      let now = state.core.nowMs
      let from = start ?? now - 30 * SimDuration.dayMs
      let to = end ?? now
      let matching = state.google.voided.enumerated().filter { _, entry in
        entry.packageName == call.packageName && entry.voidedTimeMs >= from && entry.voidedTimeMs <= to
          && (type == 1 || entry.productType == 2)
      }.sorted { ($0.element.voidedTimeMs, $0.offset) < ($1.element.voidedTimeMs, $1.offset) }.map(\.element)
      let page = Array(matching.dropFirst(offset).prefix(pageSize))
      let next = offset + page.count < matching.count ? offset + page.count : nil
      let nextToken = next.map { Base64URL.encode(Array("offset:\($0)".utf8)) }
      return .json(
        GoogleVoidedPurchasesPage(
          page, total: matching.count, startIndex: offset, maxResults: pageSize, nextPageToken: nextToken))
    }
  }
}

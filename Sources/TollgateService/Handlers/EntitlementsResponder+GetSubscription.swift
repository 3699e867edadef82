import TollgateContract
import TollgateIndex
import TollgateServer
import TollgateWire

extension EntitlementsResponder {
  /// GetSubscription's fast path: the index's summary (`EntitlementIndex.summarize`, the one the
  /// message path copies) handed to `write` in the wire's terms, under the index's lock, with
  /// no message and no string built. Not loaded, an invalid user id or an unknown user: false,
  /// and `getSubscription(_:)` answers with the error.
  public func answerGetSubscription(userId: UnsafeRawBufferPointer, _ write: (GetSubscriptionAnswer) -> Void)
    -> Bool
  {
    guard follower.isLoaded, RequestValidation.userId(byteCount: userId.count) == nil else { return false }
    return index.summarize(userId: userId, nowMs: nowMs()) { summary in
      withUnsafeTemporaryAllocation(of: SubscriptionFields.self, capacity: summary.subscriptions.count) {
        subscriptions in
        withUnsafeTemporaryAllocation(of: EntitlementStatusFields.self, capacity: summary.entitlements.count) {
          statuses in
          for (position, answer) in summary.subscriptions.enumerated() {
            subscriptions.initializeElement(at: position, to: SubscriptionFields(answer))
          }
          for (position, status) in summary.entitlements.enumerated() {
            statuses.initializeElement(
              at: position, to: EntitlementStatusFields(entitlement: status.entitlement, answer: .init(status.answer)))
          }
          write(
            GetSubscriptionAnswer(
              userId: userId, evaluatedAtMs: summary.evaluatedAtMs, subscriptions: UnsafeBufferPointer(subscriptions),
              entitlementNames: summary.entitlementNames, entitlements: UnsafeBufferPointer(statuses)))
          subscriptions.baseAddress?.deinitialize(count: summary.subscriptions.count)
          statuses.baseAddress?.deinitialize(count: summary.entitlements.count)
        }
      }
    }
  }
}

extension SubscriptionFields {
  /// The index's subscription in the wire's terms.
  init(_ answer: SubscriptionAnswer) {
    self.init(
      store: .init(answer.store), storeSubscriptionId: answer.storeSubscriptionId,
      numericStoreSubscriptionId: answer.numericStoreSubscriptionId, productId: answer.productId,
      state: .init(answer.state), active: answer.active, expiresAtMs: answer.expiresAtMs, willRenew: answer.willRenew,
      environment: .init(answer.environment), verifiedAtMs: answer.verifiedAtMs, entitlements: answer.entitlements,
      reason: answer.reason?.rawValue ?? "", replaces: answer.replaces)
  }
}

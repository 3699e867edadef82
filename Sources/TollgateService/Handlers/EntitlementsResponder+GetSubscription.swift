import TollgateContract
import TollgateIndex
import TollgateServer
import TollgateWire

extension EntitlementsResponder {
  /// GetSubscription's fast path: the index's summary (`EntitlementIndex.summarize`, the one the
  /// message path copies) handed to `write` in the wire's terms, under the index's lock, with
  /// no message built and no string built or counted (views of the index's bytes). Not loaded, an invalid user id or an unknown user: false,
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
  @inline(__always)
  init(_ view: SubscriptionView) {
    self.init(
      store: .init(view.store), storeSubscriptionId: view.storeSubscriptionId,
      numericStoreSubscriptionId: view.numericStoreSubscriptionId, productId: view.productId,
      state: .init(view.state), active: view.active, expiresAtMs: view.expiresAtMs, willRenew: view.willRenew,
      environment: .init(view.environment), verifiedAtMs: view.verifiedAtMs, entitlements: view.entitlements,
      reason: view.reason?.rawValue ?? "", replaces: view.replaces)
  }
}

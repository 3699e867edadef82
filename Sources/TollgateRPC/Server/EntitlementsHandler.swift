/// The application side of the Entitlements service.
///
/// The synchronous methods run on the connection's event loop and must not block: they answer
/// from memory. `submitPurchase` may wait on storage and runs off the event loop.
/// Application errors travel in the response's `error` field; these methods never throw.
public protocol EntitlementsHandler: Sendable {
  func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse
  func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse
  func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest) async -> Tollgate_V1_SubmitPurchaseResponse
  func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse

  /// The hot path: IsSubscriber without protobuf messages or strings (the fields are the
  /// request's bytes, valid during the call). Nil means "answer through `isSubscriber(_:)`" (an
  /// error response, or a handler without a fast path).
  func isSubscriberAnswer(_ fields: IsSubscriberFields) -> IsSubscriberAnswer?

  /// Called before a read's IsSubscriber requests are answered, with their user ids (valid
  /// during the call): a chance to load what answering them will touch, all at once. Must not
  /// change any answer.
  func warm(userIds: UnsafeBufferPointer<UnsafeRawBufferPointer>)
}

extension EntitlementsHandler {
  public func isSubscriberAnswer(_ fields: IsSubscriberFields) -> IsSubscriberAnswer? { nil }
  public func warm(userIds: UnsafeBufferPointer<UnsafeRawBufferPointer>) {}
}

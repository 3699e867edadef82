import NIOCore

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

  /// The hot path: answers a read's IsSubscriber calls together, in order, without protobuf
  /// messages or strings (the calls are the request bytes, valid during the call). Each answer is
  /// a success frame appended to `output` (`writeIsSubscriberResponseFrame(answering:with:)`), the
  /// same bytes `isSubscriber(_:)` would produce. Returns how many calls it answered: it stops at
  /// the first one it leaves to `isSubscriber(_:)` (an error response), which the server answers
  /// that way before handing it the rest. Answering together lets an implementation take its
  /// lock and its clock once and overlap the cache misses of the lookups. By default it answers
  /// none.
  func answerIsSubscriber(_ calls: UnsafeBufferPointer<IsSubscriberCall>, into output: inout ByteBuffer) -> Int
}

extension EntitlementsHandler {
  public func answerIsSubscriber(_ calls: UnsafeBufferPointer<IsSubscriberCall>, into output: inout ByteBuffer) -> Int {
    0
  }
}

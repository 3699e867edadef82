import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateWire

/// The application side of the Entitlements service: answers with messages and values; the
/// server decodes requests and encodes answers.
///
/// The synchronous methods run on the connection's event loop and must not block: they answer
/// from memory. `submitPurchase` and `getSubmission` may wait on storage and run off the event loop.
/// The server has checked the caller's scopes before calling any of them.
/// Application errors travel in the response's `error` field; these methods never throw.
public protocol EntitlementsHandler: Sendable {
  func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse
  func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse
  /// `caller` made the call (authenticated, or `.anyone` on a server without callers).
  func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity) async
    -> Tollgate_V1_SubmitPurchaseResponse
  /// The same, for the request `requestId` (`RequestID`: the caller's `x-request-id`, or one the
  /// door made up), which is stored with the submission. Every door calls this one; by default
  /// it forgets the id and calls `submitPurchase(_:caller:)`.
  func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity, requestId: RequestID)
    async -> Tollgate_V1_SubmitPurchaseResponse
  /// A submission's status, for the caller that made it (or any, for a trusted caller).
  func getSubmission(_ request: Tollgate_V1_GetSubmissionRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetSubmissionResponse
  func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse

  /// The hot path: answers a read's IsSubscriber requests together, in order, without protobuf
  /// messages or strings (the fields are the request bytes, valid during the call). Hands the
  /// answer to each of the first `n` requests to `each` with its position (the server encodes it
  /// there), the same answer `isSubscriber(_:)` would give, and returns `n`. It stops at the
  /// first request it leaves to `isSubscriber(_:)` (one answered with an error), which the server
  /// answers that way before handing it the rest. Answering together lets an implementation take
  /// its lock and its clock once and overlap the cache misses of the lookups. By default it
  /// answers none.
  func answerIsSubscriber(
    _ requests: UnsafeBufferPointer<IsSubscriberFields>, _ each: (Int, IsSubscriberAnswerView) -> Void
  ) -> Int

  /// A hint before answering: the IsSubscriber requests of every connection that became readable
  /// together (answered one connection after another right after). An implementation may load
  /// what answering them will touch, so that the lookups of different connections wait for
  /// memory at the same time. It changes nothing and answers nothing. By default it does nothing.
  func prepareIsSubscriber(_ requests: UnsafeBufferPointer<IsSubscriberFields>)

  /// GetSubscription's fast path: hands the answer for the user whose id is `userId` (the
  /// request's bytes, valid during the call) to `write` (the server encodes it there, nothing is
  /// decoded into or built as a message), the same answer `getSubscription(_:)` would give, and
  /// returns true. Returns false, without calling `write`, for a request it leaves to
  /// `getSubscription(_:)` (one answered with an error). By default it answers none.
  func answerGetSubscription(userId: UnsafeRawBufferPointer, _ write: (GetSubscriptionAnswer) -> Void) -> Bool

  /// The support and admin calls (methods 6 to 12), or nil when this replica serves none: every
  /// door then answers them UNAVAILABLE. By default nil.
  var admin: (any AdminHandler)? { get }
}

extension EntitlementsHandler {
  public func submitPurchase(
    _ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity, requestId: RequestID
  ) async -> Tollgate_V1_SubmitPurchaseResponse {
    await submitPurchase(request, caller: caller)
  }

  public func answerIsSubscriber(
    _ requests: UnsafeBufferPointer<IsSubscriberFields>, _ each: (Int, IsSubscriberAnswerView) -> Void
  ) -> Int {
    0
  }

  public func prepareIsSubscriber(_ requests: UnsafeBufferPointer<IsSubscriberFields>) {}

  public func answerGetSubscription(userId: UnsafeRawBufferPointer, _ write: (GetSubscriptionAnswer) -> Void) -> Bool {
    false
  }

  public var admin: (any AdminHandler)? { nil }
}

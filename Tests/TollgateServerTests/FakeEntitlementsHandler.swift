import Synchronization
import Testing
import TollgateCallers
import TollgateContract
import TollgateServer
import TollgateTesting
import TollgateWire

/// Answers IsSubscriber with `active = (user_id == "yes")` and the entitlement as product id, on
/// the hot path except for user "slow", which it leaves to the message path (the same answer);
/// SubmitPurchase waits until `release()`.
final class FakeEntitlementsHandler: EntitlementsHandler {
  /// IsSubscriber calls answered on the hot path, and through `isSubscriber(_:)`.
  let answeredInBulk = Atomic<Int>(0)
  let answeredAsMessages = Atomic<Int>(0)
  private let released = Atomic<Bool>(false)
  let submitted = Atomic<Int>(0)
  /// The users of each `prepareIsSubscriber` call (a round of several connections' reads).
  let prepared = Mutex<[[String]]>([])

  func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse {
    answeredAsMessages.add(1, ordering: .relaxed)
    var response = Tollgate_V1_IsSubscriberResponse()
    response.active = request.userID == "yes"
    response.productID = request.entitlement
    return response
  }

  func answerIsSubscriber(
    _ requests: UnsafeBufferPointer<IsSubscriberFields>, _ each: (Int, IsSubscriberAnswerView) -> Void
  ) -> Int {
    var answered = 0
    for request in requests {
      let userId = String(decoding: request.userId, as: UTF8.self)
      guard userId != "slow" else { break }
      var answer = IsSubscriberAnswer()
      answer.active = userId == "yes"
      answer.productId = String(decoding: request.entitlement, as: UTF8.self)
      answer.withView { each(answered, $0) }
      answered += 1
    }
    answeredInBulk.add(answered, ordering: .relaxed)
    return answered
  }

  func prepareIsSubscriber(_ requests: UnsafeBufferPointer<IsSubscriberFields>) {
    let users = requests.map { String(decoding: $0.userId, as: UTF8.self) }
    prepared.withLock { $0.append(users) }
  }

  func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse {
    var response = Tollgate_V1_GetSubscriptionResponse()
    response.userID = request.userID
    return response
  }

  func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity) async
    -> Tollgate_V1_SubmitPurchaseResponse
  {
    submitted.add(1, ordering: .relaxed)
    // Until release(), or until the server cancels the call (as SubmissionWaiter honours it).
    _ = await eventually(timeout: .seconds(30)) { released.load(ordering: .relaxed) || Task.isCancelled }
    var response = Tollgate_V1_SubmitPurchaseResponse()
    response.submissionID = "s-\(request.userID)"
    response.status = .pending
    return response
  }

  /// Echoes the id, with the calling caller's name as `user_id` (so tests see who called).
  func getSubmission(_ request: Tollgate_V1_GetSubmissionRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetSubmissionResponse
  {
    var response = Tollgate_V1_GetSubmissionResponse()
    response.submissionID = request.submissionID
    response.userID = caller.name ?? "(anyone)"
    response.status = .pending
    return response
  }

  func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse {
    var response = Tollgate_V1_HealthResponse()
    response.status = .serving
    return response
  }

  /// Until `count` SubmitPurchase calls have reached the handler (10 s at most).
  func waitUntilSubmitted(_ count: Int = 1) async throws {
    let waited = await eventually(timeout: .seconds(30)) { submitted.load(ordering: .relaxed) >= count }
    try #require(waited != nil, "\(count) SubmitPurchase calls never reached the handler")
  }

  func release() {
    released.store(true, ordering: .relaxed)
  }
}

import NIOCore
import Synchronization
import TollgateRPC

/// Answers IsSubscriber with `active = (user_id == "yes")` and the entitlement as product id, on
/// the hot path except for user "slow", which it leaves to the message path (the same answer);
/// SubmitPurchase waits until `release()`.
final class FakeEntitlementsHandler: EntitlementsHandler {
  /// IsSubscriber calls answered on the hot path, and through `isSubscriber(_:)`.
  let answeredInBulk = Atomic<Int>(0)
  let answeredAsMessages = Atomic<Int>(0)
  private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])
  private let released = Atomic<Bool>(false)
  let submitted = Atomic<Int>(0)

  func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse {
    answeredAsMessages.add(1, ordering: .relaxed)
    var response = Tollgate_V1_IsSubscriberResponse()
    response.active = request.userID == "yes"
    response.productID = request.entitlement
    return response
  }

  func answerIsSubscriber(_ calls: UnsafeBufferPointer<IsSubscriberCall>, into output: inout ByteBuffer) -> Int {
    var answered = 0
    for call in calls {
      let userId = String(decoding: call.fields.userId, as: UTF8.self)
      guard userId != "slow" else { break }
      var answer = IsSubscriberAnswer()
      answer.active = userId == "yes"
      answer.productId = String(decoding: call.fields.entitlement, as: UTF8.self)
      output.writeIsSubscriberResponseFrame(answering: call, with: answer)
      answered += 1
    }
    answeredInBulk.add(answered, ordering: .relaxed)
    return answered
  }

  func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse {
    var response = Tollgate_V1_GetSubscriptionResponse()
    response.userID = request.userID
    return response
  }

  func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest) async -> Tollgate_V1_SubmitPurchaseResponse {
    submitted.add(1, ordering: .relaxed)
    if !released.load(ordering: .relaxed) {
      await withCheckedContinuation { continuation in
        let runNow = waiting.withLock { list -> Bool in
          if released.load(ordering: .relaxed) { return true }
          list.append(continuation)
          return false
        }
        if runNow { continuation.resume() }
      }
    }
    var response = Tollgate_V1_SubmitPurchaseResponse()
    response.submissionID = "s-\(request.userID)"
    response.status = .pending
    return response
  }

  func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse {
    var response = Tollgate_V1_HealthResponse()
    response.status = .serving
    return response
  }

  func release() {
    let list = waiting.withLock { list -> [CheckedContinuation<Void, Never>] in
      released.store(true, ordering: .relaxed)
      defer { list.removeAll() }
      return list
    }
    for continuation in list { continuation.resume() }
  }
}

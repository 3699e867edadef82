import Logging
import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateServer
import TollgateStorage

extension EntitlementsResponder {
  /// A submission that came with no request id gets a new one.
  public func submitPurchase(_ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity) async
    -> Tollgate_V1_SubmitPurchaseResponse
  {
    await submitPurchase(request, caller: caller, requestId: .generated())
  }

  /// Stores the submission with `requestId`, which the worker logs for its inbox item and sends
  /// with the webhooks it causes.
  public func submitPurchase(
    _ request: Tollgate_V1_SubmitPurchaseRequest, caller: CallerIdentity, requestId: RequestID
  ) async -> Tollgate_V1_SubmitPurchaseResponse {
    var response = Tollgate_V1_SubmitPurchaseResponse()
    if let notLoaded {
      response.error = notLoaded
      return response
    }
    var submission: PurchaseSubmission
    switch RequestValidation.submission(request) {
    case .failure(let problem):
      response.error = Tollgate_V1_Error(.invalidArgument, problem.message)
      return response
    case .success(let valid):
      submission = valid
    }
    submission.caller = caller.name
    submission.callerIsTrusted = caller.isTrusted
    submission.requestId = requestId.value
    let now = nowMs()
    // What storing it costs this caller's byte budget (issue 25).
    let bytes = Self.storedBytes(submission)
    guard byteBudget.take(bytes, caller: caller.name, nowMs: now) else {
      response.error = Tollgate_V1_Error(
        .resourceExhausted,
        "this caller submitted more than \(byteBudget.bytesPerMinute) bytes of purchases in the last minute; "
          + "retry later")
      return response
    }
    let signed = SignedEvidence.isSigned(submission)
    let admission = SubmissionAdmission(
      signed: signed,
      maximumPending: signed ? config.maximumPendingSignedPerCallerAndUser : config.maximumPendingPerCallerAndUser)
    let id: Int64
    do {
      id = try await storage.submitPurchase(submission, nowMs: now, admission: admission)
    } catch let tooMany as TooManyPendingSubmissions {
      byteBudget.giveBack(bytes, caller: caller.name)
      let kind = tooMany.signed ? "signed submissions" : "submissions without a signed payload"
      response.error = Tollgate_V1_Error(
        .resourceExhausted,
        "this caller has \(tooMany.limit) \(kind) for this user waiting for verification; retry once they are "
          + "verified")
      return response
    } catch {
      byteBudget.giveBack(bytes, caller: caller.name)
      logger.error(
        "storing a submission failed",
        metadata: [
          "error": "\(error)", "store.name": "\(submission.store.rawValue)", "request_id": "\(requestId)",
        ])
      response.error = Tollgate_V1_Error(.unavailable, "the submission could not be stored; retry")
      return response
    }
    response.submissionID = String(id)
    response.status = .pending
    let waitMs = min(request.waitMs, config.maximumSubmitWaitMs)
    guard waitMs > 0 else { return response }
    await SubmissionWaiter(storage: storage, follower: follower, pollInterval: config.submitPollInterval, nowMs: nowMs)
      .wait(id: id, userId: submission.userId, upToMs: Int64(waitMs), into: &response)
    return response
  }

  /// The bytes of what a submission stores: its caller's strings (the inbox row holds them once
  /// in its payload and a few again in columns; this counts them once).
  static func storedBytes(_ submission: PurchaseSubmission) -> Int {
    let fields: [String?] = [
      submission.userId, submission.receipt, submission.purchaseToken, submission.receiptId, submission.amazonUserId,
      submission.productId, submission.appId, submission.googlePurchaseData, submission.googleSignature,
    ]
    return fields.reduce(0) { $0 + ($1?.utf8.count ?? 0) }
  }
}

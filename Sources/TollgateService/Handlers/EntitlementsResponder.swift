import Logging
import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateIndex
import TollgateServer
import TollgateStorage
import TollgateWire

/// Answers the Entitlements service's calls: IsSubscriber, GetSubscription and Health from the
/// in-memory index; SubmitPurchase into the durable inbox.
public struct EntitlementsResponder: EntitlementsHandler {
  public struct Config: Sendable {
    /// Longest `wait_ms` a SubmitPurchase may ask for.
    public var maximumSubmitWaitMs: UInt32
    /// How often a waiting SubmitPurchase checks its submission.
    public var submitPollInterval: Duration
    /// Submissions without a signed store payload that one caller may have waiting for
    /// verification for one user; more are answered with ERROR_CODE_RESOURCE_EXHAUSTED until the
    /// worker catches up. Another caller's submissions for that user do not count (issue 25).
    public var maximumPendingPerCallerAndUser: Int
    /// The same for submissions that carry a signed store payload (`SignedEvidence`), counted
    /// apart: a caller's unsigned submissions never hold back its signed ones.
    public var maximumPendingSignedPerCallerAndUser: Int
    /// Bytes of submissions one caller may store per minute (a budget refilled evenly); more are
    /// answered with ERROR_CODE_RESOURCE_EXHAUSTED.
    public var submitBytesPerMinutePerCaller: Int

    public static var defaults: Config { Config(maximumSubmitWaitMs: 10_000, submitPollInterval: .milliseconds(10)) }

    public init(
      maximumSubmitWaitMs: UInt32, submitPollInterval: Duration, maximumPendingPerCallerAndUser: Int = 20,
      maximumPendingSignedPerCallerAndUser: Int = 100, submitBytesPerMinutePerCaller: Int = 64 << 20
    ) {
      self.maximumSubmitWaitMs = maximumSubmitWaitMs
      self.submitPollInterval = submitPollInterval
      self.maximumPendingPerCallerAndUser = maximumPendingPerCallerAndUser
      self.maximumPendingSignedPerCallerAndUser = maximumPendingSignedPerCallerAndUser
      self.submitBytesPerMinutePerCaller = submitBytesPerMinutePerCaller
    }
  }

  let index: EntitlementIndex
  let follower: ChangeFeedFollower
  let storage: any EntitlementStorage
  let config: Config
  let nowMs: @Sendable () -> Int64
  let startedAtMs: Int64
  let logger: Logger
  let byteBudget: SubmitByteBudget
  /// The admin calls, answered once this replica's index has their writes (`admin`).
  let feedSyncedAdmin: FeedSyncedAdmin?

  /// - Parameter admin: the support and admin calls (methods 6 to 12), nil on a replica that
  ///   serves none (every door then answers them UNAVAILABLE).
  public init(
    index: EntitlementIndex, follower: ChangeFeedFollower, storage: any EntitlementStorage, config: Config = .defaults,
    admin: (any AdminHandler)? = nil, nowMs: @escaping @Sendable () -> Int64, logger: Logger
  ) {
    self.index = index
    self.follower = follower
    self.storage = storage
    self.config = config
    self.nowMs = nowMs
    self.startedAtMs = nowMs()
    self.logger = logger
    self.byteBudget = SubmitByteBudget(bytesPerMinute: config.submitBytesPerMinutePerCaller)
    self.feedSyncedAdmin = admin.map {
      FeedSyncedAdmin(wrapped: $0, index: index, follower: follower, storage: storage, nowMs: nowMs)
    }
  }

  public func isSubscriber(_ request: Tollgate_V1_IsSubscriberRequest) -> Tollgate_V1_IsSubscriberResponse {
    var response = Tollgate_V1_IsSubscriberResponse()
    if let notLoaded {
      response.error = notLoaded
      return response
    }
    if let problem = RequestValidation.userId(request.userID) ?? RequestValidation.entitlement(request.entitlement) {
      response.error = Tollgate_V1_Error(.invalidArgument, problem)
      return response
    }
    // One way to answer: the index's, as a message.
    let answer = index.answer(userId: request.userID, entitlement: request.entitlement, nowMs: nowMs())
    return IsSubscriberAnswer(answer).message
  }

  public func answerIsSubscriber(
    _ requests: UnsafeBufferPointer<IsSubscriberFields>, _ each: (Int, IsSubscriberAnswerView) -> Void
  ) -> Int {
    // Not loaded: every request takes the message path, which answers UNAVAILABLE.
    guard follower.isLoaded else { return 0 }
    return withUnsafeTemporaryAllocation(of: EntitlementQuery.self, capacity: requests.count) { queries in
      // The valid requests at the front; the first invalid one takes the message path, which
      // explains the problem in `error`.
      var valid = 0
      while valid < requests.count, RequestValidation.userId(byteCount: requests[valid].userId.count) == nil,
        RequestValidation.entitlement(byteCount: requests[valid].entitlement.count) == nil
      {
        queries.initializeElement(
          at: valid, to: EntitlementQuery(userId: requests[valid].userId, entitlement: requests[valid].entitlement))
        valid += 1
      }
      guard valid > 0 else { return 0 }
      // One clock reading for the whole read: its calls arrived together.
      index.answerViews(UnsafeBufferPointer(rebasing: queries[0..<valid]), nowMs: nowMs()) { position, answer in
        each(position, IsSubscriberAnswerView(answer))
      }
      return valid
    }
  }

  public func prepareIsSubscriber(_ requests: UnsafeBufferPointer<IsSubscriberFields>) {
    withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: requests.count) { userIds in
      for (position, request) in requests.enumerated() { userIds.initializeElement(at: position, to: request.userId) }
      index.warm(userIds: UnsafeBufferPointer(userIds))
    }
  }

  public func getSubscription(_ request: Tollgate_V1_GetSubscriptionRequest) -> Tollgate_V1_GetSubscriptionResponse {
    var response = Tollgate_V1_GetSubscriptionResponse()
    if let notLoaded {
      response.error = notLoaded
      return response
    }
    if let problem = RequestValidation.userId(request.userID) {
      response.error = Tollgate_V1_Error(.invalidArgument, problem)
      return response
    }
    // One way to answer: the index's summary (`EntitlementIndex.summarize`), as a message.
    let now = nowMs()
    guard let summary = index.summary(userId: request.userID, nowMs: now) else {
      response.error = Tollgate_V1_Error(.notFound, "no subscriptions or grants for this user")
      return response
    }
    response.userID = request.userID
    response.evaluatedAtMs = now
    response.subscriptions = UserSummary.subscriptions(summary)
    response.entitlements = UserSummary.entitlements(summary)
    return response
  }

  public func getSubmission(_ request: Tollgate_V1_GetSubmissionRequest, caller: CallerIdentity) async
    -> Tollgate_V1_GetSubmissionResponse
  {
    var response = Tollgate_V1_GetSubmissionResponse()
    if let notLoaded {
      response.error = notLoaded
      return response
    }
    guard let id = Int64(request.submissionID), id > 0 else {
      response.error = Tollgate_V1_Error(.invalidArgument, "submission_id must be an id SubmitPurchase returned")
      return response
    }
    let record: SubmissionRecord?
    do {
      record = try await storage.submission(id: id)
    } catch {
      logger.error("reading a submission failed", metadata: ["error": "\(error)"])
      response.error = Tollgate_V1_Error(.unavailable, "the submission could not be read; retry")
      return response
    }
    // Another caller's submission is answered as an unknown one: its existence is not told either.
    guard let record, caller.isTrusted || record.submission.caller == caller.name else {
      response.error = Tollgate_V1_Error(.notFound, "no submission \(id) made by this caller")
      return response
    }
    response.submissionID = String(id)
    response.userID = record.submission.userId
    response.receivedAtMs = record.receivedAtMs
    switch record.state {
    case .pending, .processing:
      response.status = .pending
    case .failed:
      // Verification failed for now (a store outage); the worker retries it.
      response.status = .pending
      response.error = Tollgate_V1_Error(.unavailable, record.outcome ?? "verification failed; it will be retried")
    case .verified:
      response.status = .verified
      // From this service's index once it has the worker's writes, as SubmitPurchase's wait
      // answers: the caller's next IsSubscriber agrees with this answer.
      if let head = try? await storage.headSeq() { _ = await follower.waitUntilApplied(head, timeout: .seconds(2)) }
      response.entitlements = UserSummary.entitlements(
        index.records(for: record.submission.userId), at: nowMs(), accessLevels: index.accessLevels)
    case .rejected:
      response.status = .rejected
      response.rejectionReason = record.outcome ?? "rejected"
    }
    return response
  }

  /// ERROR_CODE_UNAVAILABLE while the index was never loaded (`ChangeFeedFollower.isLoaded`):
  /// the empty index would say "not entitled" to every paying user.
  var notLoaded: Tollgate_V1_Error? {
    follower.isLoaded
      ? nil
      : Tollgate_V1_Error(
        .unavailable,
        "this replica has not loaded its index yet (its database cannot be read); ask another replica or retry")
  }

  public func health(_ request: Tollgate_V1_HealthRequest) -> Tollgate_V1_HealthResponse {
    let now = nowMs()
    let position = follower.currentPosition
    var response = Tollgate_V1_HealthResponse()
    response.indexUsers = UInt64(index.userCount)
    response.indexRecords = UInt64(index.recordCount)
    response.changeFeedAppliedSeq = position.appliedSeq
    response.changeFeedHeadSeq = position.headSeq
    response.changeFeedLagMs = position.lagMs(at: now)
    response.version = TollgateVersion.current
    response.uptimeMs = now - startedAtMs
    if let notLoaded = follower.notLoadedReason {
      response.status = .notServing
      response.reason =
        "the index has not been loaded: the storage could not be read for \(max(0, now - notLoaded.sinceMs)) ms "
        + "(\(notLoaded.reason)); every read is answered UNAVAILABLE until it loads"
      return response
    }
    switch follower.trouble {
    case .fileProblem(let reason):
      response.status = .notServing
      response.reason = reason
    case .reloading(let reason):
      response.status = .degraded
      response.reason = reason
    case nil where response.changeFeedLagMs > follower.config.staleAfter.milliseconds:
      response.status = .degraded
      response.reason = "the change feed was last read \(response.changeFeedLagMs) ms ago: answers may be stale"
    case nil:
      response.status = .serving
      let outage = index.storeUnreachableCount
      if outage > 0 {
        // Serving right, but the worker cannot read a store: say who is kept in by its policy.
        response.reason =
          "\(outage) entitlement records are kept by the worker's store-outage policy (store_unreachable)"
      }
    }
    return response
  }
}

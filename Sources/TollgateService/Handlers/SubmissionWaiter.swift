import TollgateContract
import TollgateCore
import TollgateIndex
import TollgateStorage

/// Waits, bounded, for the worker to finish a submission, and fills the response with the outcome.
struct SubmissionWaiter {
  let storage: any EntitlementStorage
  let follower: ChangeFeedFollower
  let pollInterval: Duration
  let nowMs: @Sendable () -> Int64

  func wait(id: Int64, userId: String, upToMs waitMs: Int64, into response: inout Tollgate_V1_SubmitPurchaseResponse)
    async
  {
    // A real-time bound: the wait is about the caller's patience, not the (possibly virtual) clock
    // entitlements are evaluated against.
    let deadline = ContinuousClock.now + .milliseconds(waitMs)
    while ContinuousClock.now < deadline {
      do {
        try await Task.sleep(for: pollInterval)
        guard let record = try await storage.submission(id: id) else { return }
        switch record.state {
        case .pending, .processing:
          continue
        case .verified:
          response.status = .verified
          // Answer only once this service's own index has the write, so the caller's next
          // IsSubscriber agrees with this answer.
          _ = await follower.waitUntilApplied(try await storage.headSeq(), timeout: .seconds(2))
          let now = nowMs()
          let records = try await storage.entitlements(forUsers: [userId])[userId] ?? []
          response.entitlements = UserSummary.entitlements(
            records, at: now, accessLevels: follower.index.accessLevels)
          return
        case .rejected:
          response.status = .rejected
          response.rejectionReason = record.outcome ?? "rejected"
          return
        case .failed:
          response.status = .pending
          response.error = Tollgate_V1_Error(.unavailable, record.outcome ?? "verification failed; it will be retried")
          return
        }
      } catch {
        return  // cancelled or storage trouble: the submission is stored; answer PENDING
      }
    }
  }
}

import TollgateCore

@testable import TollgateWorker

extension Claim {
  /// A claim by `userId` through a trusted caller with fresh evidence the store vouches for: what
  /// the tests that are not about ownership proof submit.
  static func vouched(_ userId: String) -> Claim {
    Claim(userId: userId, callerIsTrusted: nil, evidence: .vouched())
  }
}

extension Reconciler {
  /// `apply` with a claim by `claimant` that proves everything (`Claim.vouched`).
  @discardableResult
  func apply(
    _ chain: VerifiedChain, observedAtMs now: Int64, claimant: String?, completes inboxItem: InboxClaim?,
    reason: String,
    notSignedBeforeMs: Int64? = nil, revocations: [ReportedRevocation] = []
  ) async throws -> Outcome {
    try await apply(
      chain, observedAtMs: now, claim: claimant.map(Claim.vouched), completes: inboxItem, reason: reason,
      notSignedBeforeMs: notSignedBeforeMs, revocations: revocations)
  }
}

extension ChainRefresher {
  /// `refresh` with a claim by `claimant` that proves everything (`Claim.vouched`).
  @discardableResult
  func refresh(_ reference: ChainReference, claimant: String?, completes inboxItem: InboxClaim?, reason: String)
    async throws -> Reconciler.Outcome
  {
    try await refresh(reference, claim: claimant.map(Claim.vouched), completes: inboxItem, reason: reason)
  }
}

import TollgateCore

/// A user's claim to the purchase a submission names: who, through which caller, with what proof.
struct Claim: Sendable, Hashable {
  var userId: String
  /// The submitting caller may claim with a bare identifier (`PurchaseSubmission.callerIsTrusted`:
  /// an `admin` caller, or a server without callers); nil for submissions stored before callers
  /// existed, trusted as they were then.
  var callerIsTrusted: Bool?
  var evidence: ClaimEvidence

  var isCallerTrusted: Bool { callerIsTrusted != false }

  /// The claim a stored submission makes, with what its gateway found it proves.
  init(_ submission: PurchaseSubmission, evidence: ClaimEvidence?) {
    self.init(userId: submission.userId, callerIsTrusted: submission.callerIsTrusted, evidence: evidence ?? .unknown)
  }

  init(userId: String, callerIsTrusted: Bool?, evidence: ClaimEvidence) {
    self.userId = userId
    self.callerIsTrusted = callerIsTrusted
    self.evidence = evidence
  }
}

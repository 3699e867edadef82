import TollgateCallers
import TollgateContract

// The refusals every door answers in the same words (the fast port in a response's `error`, gRPC
// as a status, HTTP as a problem document): one text each, here, beside the doors' seam.

extension CallerGate {
  /// Takes one SubmitPurchase from `caller`'s rate (`admitSubmission(by:)`): nil when it may
  /// submit, otherwise the RESOURCE_EXHAUSTED to answer (the handler is not asked).
  public func refuseSubmission(by caller: CallerIdentity) -> Tollgate_V1_Error? {
    guard !admitSubmission(by: caller) else { return nil }
    return Tollgate_V1_Error(
      .resourceExhausted,
      "over \(Int(submitLimiter.perSecond)) SubmitPurchase calls per second for this caller; retry later")
  }
}

extension Tollgate_V1_Error {
  /// The answer to an admin call (methods 6 to 12) on a replica that serves none
  /// (`EntitlementsHandler.admin` is nil: `serve --no-admin`).
  public static let noAdmin = Tollgate_V1_Error(.unavailable, "this replica serves no admin calls")
}

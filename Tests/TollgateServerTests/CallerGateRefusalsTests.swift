import Testing
import TollgateCallers
import TollgateContract
import TollgateServer

/// The refusals the three doors answer in the same words (fast port, gRPC, HTTP), written once in
/// TollgateServer.
@Suite("CallerGate refusals shared by every door")
struct CallerGateRefusalsTests {
  static func gate(submitsPerSecond: Int) -> CallerGate {
    CallerGate(
      access: .open, authenticationLimiter: AuthenticationLimiter(perMinute: 60, burst: 10, maximumSources: 10),
      submitLimiter: SubmitRateLimiter(perSecond: submitsPerSecond, burst: 1))
  }

  @Test("a caller over its SubmitPurchase rate: RESOURCE_EXHAUSTED naming the rate; another caller is not")
  func submissionRate() {
    let gate = Self.gate(submitsPerSecond: 2)
    let web = CallerIdentity(name: "web", scopes: [.submit])
    #expect(gate.refuseSubmission(by: web) == nil)
    let refused = gate.refuseSubmission(by: web)
    #expect(refused?.code == .resourceExhausted)
    #expect(refused?.message == "over 2 SubmitPurchase calls per second for this caller; retry later")
    #expect(gate.refuseSubmission(by: CallerIdentity(name: "ios", scopes: [.submit])) == nil)
  }

  @Test("no admin on this replica: UNAVAILABLE")
  func noAdmin() {
    #expect(Tollgate_V1_Error.noAdmin.code == .unavailable)
    #expect(Tollgate_V1_Error.noAdmin.message == "this replica serves no admin calls")
  }
}

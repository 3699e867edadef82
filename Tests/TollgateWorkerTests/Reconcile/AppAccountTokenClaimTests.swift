import Testing
import TollgateCore

@testable import TollgateWorker

/// Ownership proof (issue 17): when apps set the store's account token to the user's id
/// (`bindAppAccountToken`), a purchase whose token names someone else cannot be claimed.
@Suite("Claims checked against the app account token")
struct AppAccountTokenClaimTests {
  @Test("a claim by another user than the token names is refused and recorded; the named user owns it")
  func foreignClaimRefused() async throws {
    let parts = WorkerParts { $0.bindAppAccountToken = true }
    let bought = parts.boughtNow("otx-1", appAccountToken: "AAAA-1111")
    let outcome = try await parts.reconciler.apply(
      bought, observedAtMs: parts.now, claimant: "mallory", completes: nil, reason: "purchase")
    #expect(outcome.refusal != nil)
    #expect(outcome.ownerUserId == "aaaa-1111")
    #expect(await parts.storage.entitlements(userId: "mallory").isEmpty)
    #expect(await parts.storage.events(userId: "aaaa-1111").map(\.kind).contains("claim_refused"))

    // The named user's own claim is accepted (tokens are compared without regard to case).
    let own = try await parts.reconciler.apply(
      bought, observedAtMs: parts.now, claimant: "aaaa-1111", completes: nil, reason: "purchase")
    #expect(own.refusal == nil)
  }

  @Test("without the setting, the token is not a user id and claims follow the transfer policy alone")
  func settingOff() async throws {
    let parts = WorkerParts()
    let bought = parts.boughtNow("otx-1", appAccountToken: "AAAA-1111")
    let outcome = try await parts.reconciler.apply(
      bought, observedAtMs: parts.now, claimant: "mallory", completes: nil, reason: "purchase")
    #expect(outcome.refusal == nil && outcome.ownerUserId == "mallory")
  }
}

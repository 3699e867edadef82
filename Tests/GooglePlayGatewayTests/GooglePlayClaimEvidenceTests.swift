import Testing
import TollgateCore
import TollgateTesting
import TollgateWorker

/// What a Google Play submission proves about its buyer (issue 17): the purchase token with its
/// package is vouched for (Google answers for it in that app only) and binds a purchase nobody
/// owns; moving one bound to another user needs the Play Billing data the device got, checked with
/// the app's licensing key (the token itself is shown by GetSubscription and IsSubscriber).
@Suite("Google Play claim evidence", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct GooglePlayClaimEvidenceTests {
  static let directory = GooglePlayBillingSignatureTests.directory

  @Test("without a licensing key the token binds but moves nothing, signed data or not (nothing can check it)")
  func tokenAlone() async throws {
    let gateway = try GooglePlayBillingSignatureTests.gateway(licensingKey: nil)
    let submission = PurchaseSubmission(userId: "u", store: .googlePlay, purchaseToken: "some-token")
    let evidence = try #require(try await gateway.identify(submission).claimEvidence)
    #expect(evidence.isVouchedByStore)
    #expect(evidence.transferRefusal?.contains("licensingKey") == true)
    let unchecked = GooglePlayBillingSignatureTests.submission(
      data: try Vectors.string(Self.directory + "inapp_purchase_data.json"),
      signature: try Vectors.string(Self.directory + "signature_valid.b64"))
    #expect(try await gateway.identify(unchecked).claimEvidence?.transferRefusal != nil)
  }

  @Test("with a licensing key, the token alone binds but moves nothing; with the signed Play Billing data it moves")
  func withLicensingKey() async throws {
    let gateway = try GooglePlayBillingSignatureTests.gateway(
      licensingKey: try Vectors.string(Self.directory + "license_public_key.b64"))
    let bare = PurchaseSubmission(userId: "u", store: .googlePlay, purchaseToken: "some-token")
    let alone = try #require(try await gateway.identify(bare).claimEvidence)
    #expect(alone.isVouchedByStore)
    #expect(alone.transferRefusal?.contains("google_purchase_data and google_signature") == true)

    let signed = GooglePlayBillingSignatureTests.submission(
      data: try Vectors.string(Self.directory + "inapp_purchase_data.json"),
      signature: try Vectors.string(Self.directory + "signature_valid.b64"))
    let proven = try #require(try await gateway.identify(signed).claimEvidence)
    #expect(proven.isVouchedByStore && proven.transferRefusal == nil)
  }

  @Test("signed Play Billing data moves a purchase only within transferFreshnessMs of its purchaseTime (issue 25)")
  func freshness() async throws {
    let purchaseTime: Int64 = 1_437_564_796_303  // the vector's purchaseTime
    let signed = GooglePlayBillingSignatureTests.submission(
      data: try Vectors.string(Self.directory + "inapp_purchase_data.json"),
      signature: try Vectors.string(Self.directory + "signature_valid.b64"))
    let key = try Vectors.string(Self.directory + "license_public_key.b64")
    for (ageMs, moves) in [(Int64(3_600_000), true), (86_400_000, true), (86_400_001, false), (2 * 86_400_000, false)] {
      let gateway = try GooglePlayBillingSignatureTests.gateway(licensingKey: key, nowMs: purchaseTime + ageMs)
      let evidence = try #require(try await gateway.identify(signed).claimEvidence)
      #expect(evidence.isVouchedByStore)
      #expect(evidence.signedAtMs == purchaseTime)
      #expect((evidence.transferRefusal == nil) == moves, "\(ageMs): \(evidence.transferRefusal ?? "moves")")
      if !moves {
        #expect(evidence.transferRefusal?.contains("(its purchaseTime), more than the 24 h") == true)
      }
    }
  }
}

import Foundation
import Testing
import TollgateWorker

@testable import AppStoreGateway

/// What an App Store submission proves about its buyer (issue 17).
@Suite("App Store claim evidence")
struct ClaimEvidenceTests {
  static let day: Int64 = 86_400_000
  static let now: Int64 = 1_700_000_000_000

  func evidence(signedAgoMs: Int64?, freshnessMs: Int64 = day) -> ClaimEvidence {
    AppStoreGateway.evidence(
      signedAtMs: signedAgoMs.map { Self.now - $0 }, of: "signed transaction", freshnessMs: freshnessMs,
      nowMs: Self.now)
  }

  @Test("a payload Apple signed within transferFreshnessMs is vouched for and may move a purchase")
  func fresh() {
    for ago in [0, Self.day, -60_000] as [Int64] {
      let evidence = evidence(signedAgoMs: ago)
      #expect(evidence.isVouchedByStore && evidence.transferRefusal == nil, "signed \(ago) ms ago")
      #expect(evidence.signedAtMs == Self.now - ago)
    }
  }

  @Test("an older one is vouched for (it binds a purchase nobody owns) but moves nothing, and says why")
  func stale() throws {
    let evidence = evidence(signedAgoMs: 3 * Self.day)
    #expect(evidence.isVouchedByStore)
    let why = try #require(evidence.transferRefusal)
    #expect(why.contains("signed transaction was signed 72 h ago, more than the 24 h"), "\(why)")
    #expect(why.contains("transferFreshnessMs"))
    #expect(self.evidence(signedAgoMs: 10 * 60_000, freshnessMs: 5 * 60_000).transferRefusal?.contains("5 min") == true)
  }

  @Test("a payload without a signing date moves nothing")
  func undated() {
    let evidence = evidence(signedAgoMs: nil)
    #expect(evidence.isVouchedByStore && evidence.transferRefusal == "the signed transaction carries no signing date")
  }

  @Test("a bare transaction id is no proof; the advice names what to submit")
  func bareId() {
    #expect(AppStoreGateway.bareTransactionIdAdvice.contains("jwsRepresentation"))
    #expect(AppStoreGateway.bareTransactionIdAdvice.contains("app receipt"))
  }

  @Test("transferFreshnessMs: 24 h by default, read per app, never negative")
  func setting() throws {
    let decoder = JSONDecoder()
    let plain = try decoder.decode(AppleAppSettings.self, from: Data(#"{"bundleId": "a"}"#.utf8))
    #expect(plain.transferFreshnessMs == Self.day)
    let set = try decoder.decode(
      AppleAppSettings.self, from: Data(#"{"bundleId": "a", "transferFreshnessMs": 3600000}"#.utf8))
    #expect(set.transferFreshnessMs == 3_600_000)
    let negative = try decoder.decode(
      AppleAppSettings.self, from: Data(#"{"bundleId": "a", "transferFreshnessMs": -1}"#.utf8))
    #expect(negative.problems(environment: [:]).contains("transferFreshnessMs must not be negative"))
  }
}

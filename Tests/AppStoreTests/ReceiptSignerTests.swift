import AppStore
import Foundation
import StoreSimulator
import Testing
import TollgateCrypto

/// Issue 17: a PKCS#7 receipt must be signed by an App Store receipt-signing certificate (Apple's
/// marker OID 1.2.840.113635.100.6.11.1 on the signer), as a JWS leaf must: any other certificate
/// that chains to a trusted Apple root is refused, by the verifier and by `tollgate inspect`.
@Suite("Receipt signer certificate")
struct ReceiptSignerTests {
  static let now: Int64 = 1_700_000_000

  static let receipt = SimulatedAppReceipt(
    receiptType: "ProductionSandbox", bundleId: "com.example.app", creationDateMs: now * 1000,
    purchases: [
      .init(
        productId: "pro.monthly", transactionId: "2000000000000002", originalTransactionId: "2000000000000001",
        purchaseDateMs: now * 1000 - 60_000, expiresDateMs: now * 1000 + 30 * 86_400_000)
    ])

  func verifier(_ ca: SimulatedSigningChain) -> AppReceiptVerifier {
    AppReceiptVerifier(rootCertificates: [ca.root], bundleId: "com.example.app")
  }

  @Test("a receipt signed by the receipt-signing leaf verifies and reads back")
  func genuine() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let base64 = try Self.receipt.signed(by: ca.leaf, key: ca.leafKey, chain: [ca.intermediate, ca.root])
    let parsed = try #require(verifier(ca).verify(base64: base64).payload)
    #expect(parsed.bundleId == "com.example.app" && parsed.receiptType == "ProductionSandbox")
    #expect(parsed.creationDateMs == Self.now * 1000)
    #expect(parsed.transactionIdForLookup == "2000000000000001")
    #expect(parsed.inAppPurchases.first?.productId == "pro.monthly")
  }

  @Test("a receipt signed by another certificate under the same Apple-chained intermediate is refused")
  func nonReceiptLeafRefused() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    // A genuine certificate of the same PKI, for another purpose: it chains, but has no marker.
    let otherKey = try P256PrivateKey.generate()
    let other = try CertificateIssuer.issue(
      subjectKey: otherKey, commonName: "Apple Push Services", issuer: (ca.intermediate, ca.intermediateKey),
      serial: 9, validity: .around(Self.now), isCA: false, markerOID: nil)
    let base64 = try Self.receipt.signed(by: other, key: otherKey, chain: [ca.intermediate, ca.root])
    let error = try #require(verifier(ca).verify(base64: base64).error)
    #expect(error.code == .verificationFailure)
    #expect(error.message.contains("1.2.840.113635.100.6.11.1"), "\(error.message)")
    // The same with the whole chain generated without the leaf's marker.
    var options = SimulatedSigningChain.Options()
    options.leafOID = nil
    let unmarked = try SimulatedSigningChain(now: Self.now, options: options)
    let alsoForged = try Self.receipt.signed(
      by: unmarked.leaf, key: unmarked.leafKey, chain: [unmarked.intermediate, unmarked.root])
    #expect(verifier(unmarked).verify(base64: alsoForged).error?.code == .verificationFailure)
  }

  @Test("tollgate inspect apple-receipt calls such a receipt invalid")
  func inspectRefuses() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let otherKey = try P256PrivateKey.generate()
    let other = try CertificateIssuer.issue(
      subjectKey: otherKey, commonName: "not a receipt signer", issuer: (ca.intermediate, ca.intermediateKey),
      serial: 9, validity: .around(Self.now), isCA: false, markerOID: SignedDataVerifier.intermediateOID)
    let base64 = try Self.receipt.signed(by: other, key: otherKey, chain: [ca.intermediate, ca.root])
    let report = AppStoreInspection.inspectReceipt(base64, verifier: verifier(ca))
    let json = try #require(try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
    #expect(json["verdict"] as? String == "invalid")
    #expect(json["error"] as? String == "verification_failure")
    // It still shows what the receipt says.
    #expect((json["payload"] as? [String: Any])?["bundleId"] as? String == "com.example.app")
  }

  @Test("a signer that is itself a configured root (Xcode's StoreKit certificate) is trusted as configured")
  func selfSignedRootSigner() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let base64 = try Self.receipt.signed(by: ca.root, key: ca.rootKey, chain: [])
    #expect(verifier(ca).verify(base64: base64).payload != nil)
  }
}

import AppStore
import Foundation
import StoreSimulator
import Testing
import TollgateCrypto
import TollgateTesting

/// `tollgate inspect apple-receipt` as a process (issue 17): a receipt signed by a certificate
/// that chains to the trusted root but is no receipt-signing certificate is invalid (exit 1).
@Suite("tollgate inspect apple-receipt: the signer's role", .serialized)
struct InspectReceiptSignerTests {
  static let now: Int64 = 1_700_000_000

  @Test("a receipt signed by an Apple-chained certificate without the receipt-signing OID exits 1")
  func nonReceiptSigner() async throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let receipt = SimulatedAppReceipt(
      receiptType: "Production", bundleId: "com.example.app", creationDateMs: Self.now * 1000,
      purchases: [
        .init(
          productId: "pro.monthly", transactionId: "1000000000000001", originalTransactionId: "1000000000000001",
          purchaseDateMs: Self.now * 1000, expiresDateMs: nil)
      ])
    let otherKey = try P256PrivateKey.generate()
    let other = try CertificateIssuer.issue(
      subjectKey: otherKey, commonName: "Apple-chained, not a receipt signer",
      issuer: (ca.intermediate, ca.intermediateKey), serial: 9, validity: .around(Self.now), isCA: false,
      markerOID: nil)
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let root = dir.file("root.cer")
    try Data(ca.root.der).write(to: URL(fileURLWithPath: root))
    let forged = dir.file("forged.b64")
    try receipt.signed(by: other, key: otherKey, chain: [ca.intermediate, ca.root])
      .write(toFile: forged, atomically: true, encoding: .utf8)
    let genuine = dir.file("genuine.b64")
    try receipt.signed(by: ca.leaf, key: ca.leafKey, chain: [ca.intermediate, ca.root])
      .write(toFile: genuine, atomically: true, encoding: .utf8)

    let refused = try await ChildProcess.runDetached(["inspect", "apple-receipt", forged, "--root", root])
    #expect(refused.status == 1, "\(refused.stdout) \(refused.stderr)")
    let report = try #require(try JSONSerialization.jsonObject(with: Data(refused.stdout.utf8)) as? [String: Any])
    #expect(report["verdict"] as? String == "invalid")
    #expect(report["error"] as? String == "verification_failure")
    #expect((report["message"] as? String)?.contains("1.2.840.113635.100.6.11.1") == true)
    #expect(try await ChildProcess.runDetached(["inspect", "apple-receipt", genuine, "--root", root]).status == 0)
  }
}

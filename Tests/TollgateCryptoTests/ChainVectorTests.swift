import Testing
import TollgateCrypto
import TollgateTesting

/// EXPECTED-apple.md, "apple-lib-chain" table, plus the roots' fingerprints.
@Suite("Apple chain vectors", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct ChainVectorTests {
  static let leafOID = "1.2.840.113635.100.6.11.1"
  static let intermediateOID = "1.2.840.113635.100.6.2.1"
  static let chainTime: Int64 = 1_761_962_975

  func verifier(root: String) throws -> X509ChainVerifier {
    X509ChainVerifier(
      roots: [try Certificate(der: try Vectors.bytes(root))], leafOID: Self.leafOID,
      intermediateOID: Self.intermediateOID)
  }

  func verify(_ leaf: String, _ intermediate: String, root: String, at time: Int64) throws -> P256PublicKey {
    try verifier(root: root).verify(
      leaf: try Vectors.bytes("apple/apple-lib-chain/\(leaf).der"),
      intermediate: try Vectors.bytes("apple/apple-lib-chain/\(intermediate).der"), at: time)
  }

  @Test func testChainVerifies() throws {
    let key = try verify("test-leaf", "test-intermediate", root: "apple/apple-lib/certs/testCA.der", at: Self.chainTime)
    #expect(Base64.encode(try key.derRepresentation()).hasPrefix("MFkwEwYH"))
    #expect(Base64.encode(try key.derRepresentation()).hasSuffix("CPIhrA=="))
  }

  @Test(arguments: [
    ("test-leaf-wrong-oid", "test-intermediate", CryptoError.Code.missingLeafExtension),
    ("test-leaf-under-wrong-oid-intermediate", "test-intermediate-wrong-oid", .missingIntermediateExtension),
  ])
  func wrongOIDs(leaf: String, intermediate: String, code: CryptoError.Code) {
    #expect { try verify(leaf, intermediate, root: "apple/apple-lib/certs/testCA.der", at: Self.chainTime) } throws: {
      ($0 as? CryptoError)?.code == code
    }
  }

  @Test func expiredTestChain() {
    #expect {
      try verify("test-leaf", "test-intermediate", root: "apple/apple-lib/certs/testCA.der", at: 2_280_946_846)
    } throws: { ($0 as? CryptoError)?.code == .untrustedChain }
  }

  @Test func testChainUnderWrongAnchor() {
    #expect {
      try verify("test-leaf", "test-intermediate", root: "apple/roots/AppleRootCA-G3.cer", at: Self.chainTime)
    } throws: { ($0 as? CryptoError)?.code == .untrustedChain }
  }

  @Test func nonCertificateLeaf() throws {
    let intermediate = try Vectors.bytes("apple/apple-lib-chain/test-intermediate.der")
    let verifier = try verifier(root: "apple/apple-lib/certs/testCA.der")
    for leaf in [Array("abc".utf8), Base64.decode("aGVsbG8gd29ybGQ=")!] {
      #expect { try verifier.verify(leaf: leaf, intermediate: intermediate, at: Self.chainTime) } throws: {
        ($0 as? CryptoError)?.code == .malformedCertificate
      }
    }
  }

  @Test func realAppleChain() throws {
    _ = try verify(
      "real-leaf-prod-ecc-receipt-signing-2025", "real-intermediate-wwdr-g6", root: "apple/roots/AppleRootCA-G3.cer",
      at: Self.chainTime)
    #expect {
      try verify(
        "real-leaf-prod-ecc-receipt-signing-2025", "real-intermediate-wwdr-g6", root: "apple/roots/AppleRootCA-G3.cer",
        at: 1_825_034_400)
    } throws: { ($0 as? CryptoError)?.code == .untrustedChain }
    let leaf = try Certificate(
      der: try Vectors.bytes("apple/apple-lib-chain/real-leaf-prod-ecc-receipt-signing-2025.der"))
    #expect(leaf.serialNumberHex.hasPrefix("47C287CD"))
    #expect(leaf.subject.contains("Prod ECC Mac App Store and iTunes Store Receipt Signing"))
  }

  @Test(arguments: [
    ("AppleRootCA-G3.cer", "63343abf"), ("AppleRootCA-G2.cer", "c2b9b042"), ("AppleIncRootCertificate.cer", "b0b1730e"),
    ("AppleWWDRCAG6.cer", "bdd4ed6e"), ("AppleWWDRCAG5.cer", "53fd0082"), ("StoreKitTestCertificate.cer", "ff0ba36e"),
  ])
  func rootFingerprints(file: String, prefix: String) throws {
    let cert = try Certificate(der: try Vectors.bytes("apple/roots/\(file)"))
    #expect(cert.sha256Fingerprint.hasPrefix(prefix))
  }

  @Test func testCAFacts() throws {
    let cert = try Certificate(der: try Vectors.bytes("apple/apple-lib/certs/testCA.der"))
    #expect(cert.serialNumberHex.lowercased() == "b51ce402e21f9a5b")
    #expect(cert.sha256Fingerprint.hasPrefix("48aa70550eab2cd7"))
  }
}

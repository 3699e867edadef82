import AppStore
import StoreSimulator
import Testing
import TollgateCrypto
import TollgateTesting

/// `SignedDataVerifier` remembers the chains it verified (`CachedChainVerifier`); a payload
/// whose chain is remembered is still refused for its own signature and for its signing time.
@Suite("SignedDataVerifier with a remembered chain")
struct CachedChainTests {
  /// `compact` with one byte of its signature changed.
  static func tampered(_ compact: String) -> String {
    let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
    var signature = Base64URL.decode(parts[2]) ?? []
    signature[10] ^= 0x01
    return "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
  }

  @Test("a bad signature and a changed payload are refused under a remembered chain")
  func badSignatureUnderRememberedChain() throws {
    let ca = try SimulatedSigningChain(now: Fixtures.signedAt / 1000)
    let verifier = Fixtures.verifier(ca: ca)
    let good = try Fixtures.jws(payload: Fixtures.transactionPayload(), chain: ca.chain, key: ca.leafKey)
    #expect(verifier.verifyTransaction(good).payload != nil)
    #expect(verifier.rememberedChains == 1)
    #expect(verifier.verifyTransaction(Self.tampered(good)).error?.code == .signatureMismatch)
    var changed = try Fixtures.payloadObject(of: good)
    changed["productId"] = "pro.yearly"
    #expect(
      verifier.verifyTransaction(try Fixtures.replacingPayload(of: good, with: changed)).error?.code
        == .signatureMismatch)
    // Signed by another key under the same x5c: refused.
    let forged = try Fixtures.jws(
      payload: Fixtures.transactionPayload(), chain: ca.chain, key: try P256PrivateKey.generate())
    #expect(verifier.verifyTransaction(forged).error?.code == .signatureMismatch)
    #expect(verifier.verifyTransaction(good).payload != nil)
    #expect(verifier.rememberedChains == 1)
  }

  @Test("a forged leaf in x5c (the remembered leaf's bytes altered), signed by the leaf's key, is refused every time")
  func forgedLeafInHeader() throws {
    let ca = try SimulatedSigningChain(now: Fixtures.signedAt / 1000)
    let verifier = Fixtures.verifier(ca: ca)
    let good = try Fixtures.jws(payload: Fixtures.transactionPayload(), chain: ca.chain, key: ca.leafKey)
    #expect(verifier.verifyTransaction(good).payload != nil)
    var forgedLeaf = ca.leaf.der
    forgedLeaf[forgedLeaf.count - 5] ^= 0x20
    let x5c = [Base64.encode(forgedLeaf), Base64.encode(ca.intermediate.der), Base64.encode(ca.root.der)]
    let forged = try Fixtures.jws(
      payload: Fixtures.transactionPayload(), chain: ca.chain, key: ca.leafKey, header: ["x5c": x5c])
    for _ in 0..<2 { #expect(verifier.verifyTransaction(forged).error?.code == .verificationFailure) }
    #expect(verifier.rememberedChains == 1)
  }

  @Test("a payload signed after the leaf expired is refused although its chain was remembered")
  func signedAfterTheLeafExpired() throws {
    var options = SimulatedSigningChain.Options.defaults
    let signedAt = Fixtures.signedAt / 1000
    options.leaf = .init(notBefore: signedAt - 86_400, notAfter: signedAt + 60)
    let ca = try SimulatedSigningChain(now: signedAt, options: options)
    let verifier = Fixtures.verifier(ca: ca)
    let good = try Fixtures.jws(payload: Fixtures.transactionPayload(), chain: ca.chain, key: ca.leafKey)
    #expect(verifier.verifyTransaction(good).payload != nil)
    var late = Fixtures.transactionPayload()
    late["signedDate"] = Fixtures.signedAt + 60_000
    let expired = try Fixtures.jws(payload: late, chain: ca.chain, key: ca.leafKey)
    #expect(verifier.verifyTransaction(expired).error?.code == .verificationFailure)
    #expect(verifier.verifyTransaction(good).payload != nil)
  }
}

/// The same through Apple's own signed test data (EXPECTED-apple.md, "apple-lib/mock_signed_data").
@Suite("Remembered chains, Apple's vectors", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct CachedChainVectorTests {
  @Test("Apple's transactionInfo verifies twice on one chain, and its tampered copy is refused")
  func appleTransactionInfo() throws {
    let jws = try Vectors.trimmed("apple/apple-lib/mock_signed_data/transactionInfo")
    let verifier = try Fixtures.verifier()
    #expect(verifier.verifyTransaction(jws).payload?.signedDate == 1_672_956_154_000)
    #expect(verifier.verifyTransaction(jws).payload != nil)
    #expect(verifier.rememberedChains == 1)
    #expect(verifier.verifyTransaction(CachedChainTests.tampered(jws)).error?.code == .signatureMismatch)
    // Under Apple's real root the test chain is refused every time, and never remembered.
    let g3 = try Fixtures.verifier(root: "apple/roots/AppleRootCA-G3.cer")
    #expect(g3.verifyTransaction(jws).error?.code == .verificationFailure)
    #expect(g3.verifyTransaction(jws).error?.code == .verificationFailure)
    #expect(g3.rememberedChains == 0)
  }
}

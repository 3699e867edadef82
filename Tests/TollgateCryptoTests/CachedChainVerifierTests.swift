import Testing
import TollgateCrypto
import TollgateTesting

/// `CachedChainVerifier` answers as `X509ChainVerifier` does, whatever it remembers: a remembered
/// chain is taken only for the same certificates' bytes at a moment inside its validity window,
/// a failure is never remembered, and it holds at most its capacity.
@Suite("Cached certificate chains")
struct CachedChainVerifierTests {
  static let leafOID = "1.2.840.113635.100.6.11.1"
  static let intermediateOID = "1.2.840.113635.100.6.2.1"
  static let now: Int64 = 1_767_225_600

  /// A root, an intermediate under it and a leaf under that, with Apple's marker OIDs; the leaf's
  /// validity is `leafValidity` (the others: ten years around now).
  struct Chain {
    var root: Certificate
    var intermediate: Certificate
    var intermediateKey: P256PrivateKey
    var leaf: Certificate
    var leafKey: P256PrivateKey

    init(leafValidity: CertificateIssuer.Validity = .around(CachedChainVerifierTests.now, years: 1)) throws {
      let rootKey = try P256PrivateKey.generate()
      root = try CertificateIssuer.issue(
        subjectKey: rootKey, commonName: "Test Root", issuer: nil, serial: 1, validity: .around(now), isCA: true,
        markerOID: nil)
      intermediateKey = try P256PrivateKey.generate()
      intermediate = try CertificateIssuer.issue(
        subjectKey: intermediateKey, commonName: "Test WWDR", issuer: (root, rootKey), serial: 2,
        validity: .around(now), isCA: true, markerOID: intermediateOID)
      leafKey = try P256PrivateKey.generate()
      leaf = try Self.leaf(key: leafKey, under: (intermediate, intermediateKey), serial: 3, validity: leafValidity)
    }

    static func leaf(
      key: P256PrivateKey, under issuer: (Certificate, P256PrivateKey), serial: Int64,
      validity: CertificateIssuer.Validity, oid: String? = leafOID
    ) throws -> Certificate {
      try CertificateIssuer.issue(
        subjectKey: key, commonName: "Test Leaf \(serial)", issuer: issuer, serial: serial, validity: validity,
        isCA: false, markerOID: oid)
    }

    var plain: X509ChainVerifier {
      X509ChainVerifier(roots: [root], leafOID: leafOID, intermediateOID: intermediateOID)
    }
  }

  /// What a verifier answers: the key's DER, or the error's code.
  static func answer(_ verify: () throws(CryptoError) -> P256PublicKey) -> String {
    do {
      return "key " + Base64.encode(try verify().derRepresentation())
    } catch {
      return "error \(error.code)"
    }
  }

  @Test("around the chain's validity window the cached verifier answers as the plain one, the chain remembered first")
  func sameAnswerAroundTheWindow() throws {
    let leafValidity = CertificateIssuer.Validity(notBefore: Self.now - 3_600, notAfter: Self.now + 3_600)
    let chain = try Chain(leafValidity: leafValidity)
    let cached = CachedChainVerifier(chain.plain)
    _ = try cached.verify(leaf: chain.leaf.der, intermediate: chain.intermediate.der, at: Self.now)
    #expect(cached.count == 1)
    let moments = [
      leafValidity.notBefore - 1, leafValidity.notBefore, leafValidity.notBefore + 1, Self.now,
      leafValidity.notAfter - 1, leafValidity.notAfter, leafValidity.notAfter + 1, Self.now + 86_400,
    ]
    var accepted = 0
    for moment in moments {
      let slow = Self.answer { () throws(CryptoError) in
        try chain.plain.verify(leaf: chain.leaf.der, intermediate: chain.intermediate.der, at: moment)
      }
      let fast = Self.answer { () throws(CryptoError) in
        try cached.verify(leaf: chain.leaf.der, intermediate: chain.intermediate.der, at: moment)
      }
      #expect(fast == slow, "at \(moment - Self.now) s from now")
      accepted += slow.hasPrefix("key") ? 1 : 0
    }
    // Inside: notBefore … notAfter - 1; outside: before notBefore and from notAfter on.
    #expect(accepted == 4)
  }

  @Test(
    "given as base64 text, a chain is remembered by its text and answered as its bytes are; text that is not base64 is refused"
  )
  func base64Text() throws {
    let chain = try Chain(leafValidity: .init(notBefore: Self.now - 60, notAfter: Self.now + 60))
    let cached = CachedChainVerifier(chain.plain)
    let leaf = Base64.encode(chain.leaf.der)
    let intermediate = Base64.encode(chain.intermediate.der)
    for moment in [Self.now, Self.now, Self.now + 60, Self.now - 61] {
      let slow = Self.answer { () throws(CryptoError) in
        try chain.plain.verify(leaf: chain.leaf.der, intermediate: chain.intermediate.der, at: moment)
      }
      let fast = Self.answer { () throws(CryptoError) in
        try cached.verify(base64Leaf: leaf, base64Intermediate: intermediate, at: moment)
      }
      #expect(fast == slow)
    }
    #expect(cached.count == 1)
    #expect { try cached.verify(base64Leaf: "not base64!", base64Intermediate: intermediate, at: Self.now) } throws: {
      ($0 as? CryptoError)?.code == .malformedCertificate
    }
  }

  @Test("a leaf past its validity is refused although its chain was remembered while it was valid")
  func expiredLeafRefused() throws {
    let chain = try Chain(leafValidity: .init(notBefore: Self.now - 60, notAfter: Self.now + 60))
    let cached = CachedChainVerifier(chain.plain)
    _ = try cached.verify(leaf: chain.leaf.der, intermediate: chain.intermediate.der, at: Self.now)
    #expect {
      try cached.verify(leaf: chain.leaf.der, intermediate: chain.intermediate.der, at: Self.now + 60)
    } throws: { ($0 as? CryptoError)?.code == .untrustedChain }
  }

  @Test("another leaf with the remembered leaf's key is verified in full: without the leaf OID it is refused")
  func sameKeyOtherLeaf() throws {
    let chain = try Chain()
    let cached = CachedChainVerifier(chain.plain)
    _ = try cached.verify(leaf: chain.leaf.der, intermediate: chain.intermediate.der, at: Self.now)
    let twin = try Chain.leaf(
      key: chain.leafKey, under: (chain.intermediate, chain.intermediateKey), serial: 4,
      validity: .around(Self.now, years: 1), oid: nil)
    #expect(try twin.p256PublicKey().derRepresentation() == chain.leafKey.publicKey.derRepresentation())
    #expect { try cached.verify(leaf: twin.der, intermediate: chain.intermediate.der, at: Self.now) } throws: {
      ($0 as? CryptoError)?.code == .missingLeafExtension
    }
    // And under an intermediate of another root, with the same leaf key: refused too.
    let stranger = try Chain()
    let foreign = try Chain.leaf(
      key: chain.leafKey, under: (stranger.intermediate, stranger.intermediateKey), serial: 3,
      validity: .around(Self.now, years: 1))
    #expect { try cached.verify(leaf: foreign.der, intermediate: stranger.intermediate.der, at: Self.now) } throws: {
      ($0 as? CryptoError)?.code == .untrustedChain
    }
    #expect(cached.count == 1)
  }

  @Test("a forged copy of a remembered leaf (its signature altered) is refused, and never remembered")
  func forgedLeafRefused() throws {
    let chain = try Chain()
    let cached = CachedChainVerifier(chain.plain)
    _ = try cached.verify(leaf: chain.leaf.der, intermediate: chain.intermediate.der, at: Self.now)
    var forged = chain.leaf.der
    forged[forged.count - 3] ^= 0x5a
    for _ in 0..<2 {
      #expect(throws: CryptoError.self) {
        try cached.verify(leaf: forged, intermediate: chain.intermediate.der, at: Self.now)
      }
    }
    #expect(cached.count == 1)
  }

  @Test("it holds at most its capacity, the oldest chain forgotten first, and still verifies every chain")
  func bounded() throws {
    let chain = try Chain()
    let cached = CachedChainVerifier(chain.plain, capacity: 2)
    var leaves: [Certificate] = []
    for serial in Int64(10)..<15 {
      let leaf = try Chain.leaf(
        key: try P256PrivateKey.generate(), under: (chain.intermediate, chain.intermediateKey), serial: serial,
        validity: .around(Self.now, years: 1))
      let key = try cached.verify(leaf: leaf.der, intermediate: chain.intermediate.der, at: Self.now)
      #expect(try key.derRepresentation() == leaf.p256PublicKey().derRepresentation())
      leaves.append(leaf)
      #expect(cached.count <= 2)
    }
    #expect(cached.count == 2)
    // The first one was forgotten: verified again in full, with the same key.
    let again = try cached.verify(leaf: leaves[0].der, intermediate: chain.intermediate.der, at: Self.now)
    #expect(try again.derRepresentation() == leaves[0].p256PublicKey().derRepresentation())
  }

}

/// The same, through Apple's own test chain (EXPECTED-apple.md, "apple-lib-chain").
@Suite("Cached Apple chain vectors", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct CachedAppleChainVectorTests {
  static let leafOID = CachedChainVerifierTests.leafOID
  static let intermediateOID = CachedChainVerifierTests.intermediateOID

  @Test("Apple's test chain: remembered at its time, refused past its expiry, never remembered under Apple's real root")
  func appleTestChain() throws {
    let leaf = try Vectors.bytes("apple/apple-lib-chain/test-leaf.der")
    let intermediate = try Vectors.bytes("apple/apple-lib-chain/test-intermediate.der")
    let testRoot = try Certificate(der: try Vectors.bytes("apple/apple-lib/certs/testCA.der"))
    let cached = CachedChainVerifier(
      X509ChainVerifier(roots: [testRoot], leafOID: Self.leafOID, intermediateOID: Self.intermediateOID))
    let key = try cached.verify(leaf: leaf, intermediate: intermediate, at: ChainVectorTests.chainTime)
    #expect(Base64.encode(try key.derRepresentation()).hasSuffix("CPIhrA=="))
    #expect(cached.count == 1)
    #expect { try cached.verify(leaf: leaf, intermediate: intermediate, at: 2_280_946_846) } throws: {
      ($0 as? CryptoError)?.code == .untrustedChain
    }
    let realRoot = try Certificate(der: try Vectors.bytes("apple/roots/AppleRootCA-G3.cer"))
    let underReal = CachedChainVerifier(
      X509ChainVerifier(roots: [realRoot], leafOID: Self.leafOID, intermediateOID: Self.intermediateOID))
    for _ in 0..<2 {
      #expect { try underReal.verify(leaf: leaf, intermediate: intermediate, at: ChainVectorTests.chainTime) } throws: {
        ($0 as? CryptoError)?.code == .untrustedChain
      }
    }
    #expect(underReal.count == 0)
  }
}

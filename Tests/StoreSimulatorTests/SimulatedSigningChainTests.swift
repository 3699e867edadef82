import StoreSimulator
import Testing
import TollgateCrypto

@Suite("Simulated signing chain")
struct SimulatedSigningChainTests {
  static let now: Int64 = 1_750_000_000
  static let leafOID = "1.2.840.113635.100.6.11.1"
  static let intermediateOID = "1.2.840.113635.100.6.2.1"

  func verifier(_ ca: SimulatedSigningChain) -> X509ChainVerifier {
    X509ChainVerifier(roots: [ca.root], leafOID: Self.leafOID, intermediateOID: Self.intermediateOID)
  }

  @Test func issuedChainVerifiesAndSigns() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let key = try verifier(ca).verify(leaf: ca.leaf.der, intermediate: ca.intermediate.der, at: Self.now)
    let message = Array("a.b".utf8)
    #expect(ES256.isValidSignature(try ES256.sign(message, with: ca.leafKey), for: message, publicKey: key))
    #expect(ca.leaf.hasExtension(oid: Self.leafOID))
    #expect(ca.intermediate.hasExtension(oid: Self.intermediateOID))
    #expect(ca.leaf.validity.notBefore == Self.now - 86_400)
    // No time check at all.
    _ = try verifier(ca).verify(leaf: ca.leaf.der, intermediate: ca.intermediate.der, at: nil)
  }

  @Test func expiredLeafIsRejected() throws {
    var options = SimulatedSigningChain.Options()
    options.leaf = .init(notBefore: Self.now - 1000, notAfter: Self.now - 1)
    let ca = try SimulatedSigningChain(now: Self.now, options: options)
    #expect { try verifier(ca).verify(leaf: ca.leaf.der, intermediate: ca.intermediate.der, at: Self.now) } throws: {
      ($0 as? CryptoError)?.code == .untrustedChain
    }
    _ = try verifier(ca).verify(leaf: ca.leaf.der, intermediate: ca.intermediate.der, at: Self.now - 10)
  }

  @Test func missingMarkersAreRejected() throws {
    var options = SimulatedSigningChain.Options()
    options.leafOID = "1.2.840.113635.100.6.11.2"
    var ca = try SimulatedSigningChain(now: Self.now, options: options)
    #expect { try verifier(ca).verify(leaf: ca.leaf.der, intermediate: ca.intermediate.der, at: Self.now) } throws: {
      ($0 as? CryptoError)?.code == .missingLeafExtension
    }
    options = .init()
    options.intermediateOID = nil
    ca = try SimulatedSigningChain(now: Self.now, options: options)
    #expect { try verifier(ca).verify(leaf: ca.leaf.der, intermediate: ca.intermediate.der, at: Self.now) } throws: {
      ($0 as? CryptoError)?.code == .missingIntermediateExtension
    }
  }

  @Test func otherAuthorityOrSkippedIntermediateIsRejected() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let other = try SimulatedSigningChain(now: Self.now)
    #expect {
      try verifier(ca).verify(leaf: other.leaf.der, intermediate: other.intermediate.der, at: Self.now)
    } throws: {
      ($0 as? CryptoError)?.code == .untrustedChain
    }
    // A leaf signed by the root itself, with any intermediate beside it: not a 3-certificate chain.
    let direct = try CertificateIssuer.issue(
      subjectKey: ca.leafKey, commonName: "direct", issuer: (ca.root, ca.rootKey), serial: 9,
      validity: .around(Self.now), isCA: false, markerOID: Self.leafOID)
    #expect { try verifier(ca).verify(leaf: direct.der, intermediate: ca.intermediate.der, at: Self.now) } throws: {
      ($0 as? CryptoError)?.code == .untrustedChain
    }
    // The root passed as the intermediate.
    #expect { try verifier(ca).verify(leaf: ca.leaf.der, intermediate: ca.root.der, at: Self.now) } throws: {
      ($0 as? CryptoError)?.code == .untrustedChain
    }
  }
}

import AppStore
import StoreSimulator
import Testing
import TollgateCrypto

/// Our own forgeries, built with the test CA: every one is refused with its own code.
@Suite("JWS forgeries")
struct ForgeryTests {
  static let now = Fixtures.signedAt / 1000

  @Test func genuineTestChainVerifies() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let jws = try Fixtures.jws(payload: Fixtures.transactionPayload(), chain: ca.chain, key: ca.leafKey)
    let transaction = try #require(Fixtures.verifier(ca: ca).verifyTransaction(jws).payload)
    #expect(transaction.productId == "pro.monthly")
  }

  @Test func untrustedChain() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let attacker = try SimulatedSigningChain(now: Self.now)
    let jws = try Fixtures.jws(payload: Fixtures.transactionPayload(), chain: attacker.chain, key: attacker.leafKey)
    #expect(Fixtures.verifier(ca: ca).verifyTransaction(jws).error?.code == .verificationFailure)
    // The attacker copies the genuine root into x5c[2]: still anchored on the configured root.
    let withGenuineRoot = try Fixtures.jws(
      payload: Fixtures.transactionPayload(), chain: [attacker.leaf, attacker.intermediate, ca.root],
      key: attacker.leafKey)
    #expect(Fixtures.verifier(ca: ca).verifyTransaction(withGenuineRoot).error?.code == .verificationFailure)
  }

  @Test func swappedLeaf() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let otherLeafKey = try P256PrivateKey.generate()
    let otherLeaf = try CertificateIssuer.issue(
      subjectKey: otherLeafKey, commonName: "other", issuer: (ca.intermediate, ca.intermediateKey), serial: 7,
      validity: .around(Self.now), isCA: false, markerOID: SignedDataVerifier.leafOID)
    // Signed by the genuine leaf key, but x5c names another (genuine) leaf.
    let jws = try Fixtures.jws(
      payload: Fixtures.transactionPayload(), chain: [otherLeaf, ca.intermediate, ca.root], key: ca.leafKey)
    #expect(Fixtures.verifier(ca: ca).verifyTransaction(jws).error?.code == .signatureMismatch)
  }

  @Test func expiredCertificates() throws {
    var options = SimulatedSigningChain.Options()
    options.leaf = .init(notBefore: Self.now - 86_400 * 30, notAfter: Self.now - 1)
    let ca = try SimulatedSigningChain(now: Self.now, options: options)
    let jws = try Fixtures.jws(payload: Fixtures.transactionPayload(), chain: ca.chain, key: ca.leafKey)
    #expect(Fixtures.verifier(ca: ca).verifyTransaction(jws).error?.code == .verificationFailure)
    // Evaluated at signedDate: a payload signed while the leaf was valid still verifies.
    var earlier = Fixtures.transactionPayload()
    earlier["signedDate"] = (Self.now - 86_400) * 1000
    let old = try Fixtures.jws(payload: earlier, chain: ca.chain, key: ca.leafKey)
    #expect(Fixtures.verifier(ca: ca).verifyTransaction(old).payload != nil)
  }

  @Test(arguments: [
    (Optional("1.2.840.113635.100.6.11.2"), Optional(SignedDataVerifier.intermediateOID)),
    (SignedDataVerifier.leafOID, "1.2.840.113635.100.6.2.2"), (nil, SignedDataVerifier.intermediateOID),
    (SignedDataVerifier.leafOID, nil),
  ])
  func wrongOIDs(leafOID: String?, intermediateOID: String?) throws {
    var options = SimulatedSigningChain.Options()
    options.leafOID = leafOID
    options.intermediateOID = intermediateOID
    let ca = try SimulatedSigningChain(now: Self.now, options: options)
    let jws = try Fixtures.jws(payload: Fixtures.transactionPayload(), chain: ca.chain, key: ca.leafKey)
    #expect(Fixtures.verifier(ca: ca).verifyTransaction(jws).error?.code == .verificationFailure)
  }

  @Test(arguments: ["none", "HS256", "RS256", "ES384"])
  func otherAlgorithms(alg: String) throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let jws = try Fixtures.jws(payload: Fixtures.transactionPayload(), chain: ca.chain, key: ca.leafKey)
    var parts = jws.split(separator: ".").map(String.init)
    let header = "{\"alg\":\"\(alg)\",\"x5c\":[\"\(Base64.encode(ca.leaf.der))\"]}"
    parts[0] = Base64URL.encode(Array(header.utf8))
    if alg == "none" { parts[2] = "" }
    #expect(
      Fixtures.verifier(ca: ca).verifyTransaction(parts.joined(separator: ".")).error?.code == .unsupportedAlgorithm)
  }

  @Test func chainShapes() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let verifier = Fixtures.verifier(ca: ca)
    let payload = Fixtures.transactionPayload()
    let short = try Fixtures.jws(payload: payload, chain: [ca.leaf, ca.intermediate], key: ca.leafKey)
    #expect(verifier.verifyTransaction(short).error?.code == .invalidChainLength)
    let long = try Fixtures.jws(payload: payload, chain: ca.chain + [ca.root], key: ca.leafKey)
    #expect(verifier.verifyTransaction(long).error?.code == .invalidChainLength)
    let garbage = try Fixtures.jws(
      payload: payload, chain: [], key: ca.leafKey, header: ["x5c": ["abc", Base64.encode(ca.intermediate.der), "x"]])
    #expect(verifier.verifyTransaction(garbage).error?.code == .invalidCertificate)
    let notDER = try Fixtures.jws(
      payload: payload, chain: [], key: ca.leafKey,
      header: ["x5c": ["aGVsbG8=", Base64.encode(ca.intermediate.der), Base64.encode(ca.root.der)]])
    #expect(verifier.verifyTransaction(notDER).error?.code == .invalidCertificate)
  }

  @Test func truncatedAndMalformedSegments() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let verifier = Fixtures.verifier(ca: ca)
    let jws = try Fixtures.jws(payload: Fixtures.transactionPayload(), chain: ca.chain, key: ca.leafKey)
    let parts = jws.split(separator: ".").map(String.init)
    #expect(verifier.verifyTransaction(parts[0] + "." + parts[1]).error?.code == .invalidJWTFormat)
    #expect(verifier.verifyTransaction(parts[0] + "." + parts[1] + ".").error?.code == .signatureMismatch)
    let shortSignature = Base64URL.encode(Base64URL.decode(parts[2])!.prefix(48))
    #expect(
      verifier.verifyTransaction(parts[0] + "." + parts[1] + "." + shortSignature).error?.code == .signatureMismatch)
    #expect(verifier.verifyTransaction(parts[0] + "." + parts[1] + ".***").error?.code == .malformedBase64)
    #expect(verifier.verifyTransaction(parts[0] + ".e30!." + parts[2]).error?.code == .malformedBase64)
    let truncatedPayload = parts[0] + "." + Base64URL.encode(Base64URL.decode(parts[1])!.dropLast(10)) + "." + parts[2]
    #expect(verifier.verifyTransaction(truncatedPayload).error?.code == .malformedPayload)
  }

  @Test func tamperedPayload() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let jws = try Fixtures.jws(payload: Fixtures.transactionPayload(), chain: ca.chain, key: ca.leafKey)
    var payload = Fixtures.transactionPayload()
    payload["expiresDate"] = Fixtures.signedAt + 100 * 86_400_000
    let forged = try Fixtures.replacingPayload(of: jws, with: payload)
    #expect(Fixtures.verifier(ca: ca).verifyTransaction(forged).error?.code == .signatureMismatch)
  }

  @Test func nestedNotificationPartsAreVerified() throws {
    let ca = try SimulatedSigningChain(now: Self.now)
    let attacker = try SimulatedSigningChain(now: Self.now)
    let goodTransaction = try Fixtures.jws(payload: Fixtures.transactionPayload(), chain: ca.chain, key: ca.leafKey)
    let badTransaction = try Fixtures.jws(
      payload: Fixtures.transactionPayload(), chain: attacker.chain, key: attacker.leafKey)
    func notification(_ signedTransaction: String) throws -> String {
      let data: [String: any Sendable] = [
        "bundleId": "com.example", "environment": "Sandbox", "appAppleId": 1234,
        "signedTransactionInfo": signedTransaction,
      ]
      let payload: [String: any Sendable] = [
        "notificationType": "DID_RENEW", "notificationUUID": "u-1", "signedDate": Fixtures.signedAt, "data": data,
      ]
      return try Fixtures.jws(payload: payload, chain: ca.chain, key: ca.leafKey)
    }
    let verifier = Fixtures.verifier(ca: ca)
    let good = try #require(verifier.verifyNotificationContents(try notification(goodTransaction)).payload)
    #expect(good.transaction?.transactionId == "2000000000000002")
    let bad = verifier.verifyNotificationContents(try notification(badTransaction)).error
    #expect(bad?.code == .verificationFailure)
    #expect(bad?.message.hasPrefix("signedTransactionInfo") == true)
  }
}

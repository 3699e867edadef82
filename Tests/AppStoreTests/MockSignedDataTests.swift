import AppStore
import Testing
import TollgateCrypto
import TollgateTesting

/// EXPECTED-apple.md: "apple-lib/mock_signed_data" and "apple-lib/xcode" (JWS rows).
@Suite("Apple mock signed data", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct MockSignedDataTests {
  let mock = "apple/apple-lib/mock_signed_data/"

  @Test func testNotificationSandbox() throws {
    let result = try Fixtures.verifier().verifyNotification(try Vectors.trimmed(mock + "testNotification"))
    let notification = try #require(result.payload, "\(String(describing: result.error))")
    #expect(notification.typedNotificationType == .test)
    #expect(notification.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
    #expect(notification.signedDate == 1_681_314_324_000)
    #expect(notification.data?.appAppleId == 1234)
  }

  @Test(arguments: [
    (AppStoreEnvironment.production, Int64(1234), VerificationError.Code.invalidEnvironment),
    (.production, 1235, .invalidAppIdentifier),
  ])
  func testNotificationProduction(environment: AppStoreEnvironment, appAppleId: Int64, code: VerificationError.Code)
    throws
  {
    let verifier = try Fixtures.verifier(appAppleId: appAppleId, environment: environment)
    #expect(verifier.verifyNotification(try Vectors.trimmed(mock + "testNotification")).error?.code == code)
  }

  @Test func testNotificationAsTransactionAndUnderG3() throws {
    let jws = try Vectors.trimmed(mock + "testNotification")
    #expect(try Fixtures.verifier().verifyTransaction(jws).error?.code == .invalidAppIdentifier)
    let g3 = try Fixtures.verifier(root: "apple/roots/AppleRootCA-G3.cer")
    #expect(g3.verifyNotification(jws).error?.code == .verificationFailure)
  }

  @Test func productionWithSandboxAllowed() throws {
    let verifier = try Fixtures.verifier(environment: .production, allowSandbox: true)
    #expect(verifier.verifyNotification(try Vectors.trimmed(mock + "testNotification")).payload != nil)
  }

  @Test func transactionInfo() throws {
    let jws = try Vectors.trimmed(mock + "transactionInfo")
    let transaction = try #require(try Fixtures.verifier().verifyTransaction(jws).payload)
    #expect(transaction.typedEnvironment == .sandbox)
    #expect(transaction.signedDate == 1_672_956_154_000)
    #expect(
      try Fixtures.verifier(bundleId: "com.example.x").verifyTransaction(jws).error?.code == .invalidAppIdentifier)
  }

  @Test func renewalInfo() throws {
    let jws = try Vectors.trimmed(mock + "renewalInfo")
    let info = try #require(try Fixtures.verifier().verifyRenewalInfo(jws).payload)
    #expect(info.typedEnvironment == .sandbox)
    #expect(try Fixtures.verifier(environment: .production).verifyRenewalInfo(jws).error?.code == .invalidEnvironment)
  }

  @Test(arguments: [
    ("com.examplex", VerificationError.Code.invalidAppIdentifier),
    ("com.example", .invalidAppIdentifier), ("com.example.wrong", .invalidEnvironment),
  ])
  func wrongBundleId(bundleId: String, code: VerificationError.Code) throws {
    let jws = try Vectors.trimmed(mock + "wrongBundleId")
    #expect(try Fixtures.verifier(bundleId: bundleId).verifyNotification(jws).error?.code == code)
  }

  @Test func missingX5CHeaderClaim() throws {
    let jws = try Vectors.trimmed(mock + "missingX5CHeaderClaim")
    #expect(try Fixtures.verifier().verifyNotification(jws).error?.code == .missingCertificateChain)
  }

  @Test(arguments: ["a.b.c.d", "a.b", "", "a..c"])
  func notThreeSegments(jws: String) throws {
    #expect(try Fixtures.verifier().verifyNotification(jws).error?.code == .invalidJWTFormat)
  }

  @Test func inlineABC() throws {
    // "a.b.c": each segment is valid base64url of garbage; the header is not JSON.
    #expect(try Fixtures.verifier().verifyNotification("a.b.c").error?.code == .malformedBase64)
    #expect(try Fixtures.verifier().verifyNotification("YQ.YQ.YQ").error?.code == .invalidJWTFormat)
  }

  @Test func mutatedPayloadKeepsSignature() throws {
    let jws = try Vectors.trimmed(mock + "transactionInfo")
    var payload = try Fixtures.payloadObject(of: jws)
    payload["bundleId"] = "com.example"
    payload["environment"] = "Sandbox"
    payload["signedDate"] = 1_672_956_154_000
    payload["productId"] = "com.example.forged"
    let forged = try Fixtures.replacingPayload(of: jws, with: payload)
    #expect(try Fixtures.verifier().verifyTransaction(forged).error?.code == .signatureMismatch)
  }

  @Test func legacyTransactionReceipt() throws {
    let text = try Vectors.trimmed(mock + "legacyTransaction")
    #expect(LegacyTransactionReceipt.transactionId(fromBase64: text) == "33993399")
  }
}

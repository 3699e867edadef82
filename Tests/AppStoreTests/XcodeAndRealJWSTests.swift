import AppStore
import Testing
import TollgateCrypto
import TollgateTesting

/// EXPECTED-apple.md: "apple-lib/xcode" JWS rows, and the real sandbox JWS under real-jws/.
@Suite("Xcode and real App Store JWS", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct XcodeAndRealJWSTests {
  let xcode = "apple/apple-lib/xcode/"
  let bundle = "com.example.naturelab.backyardbirds.example"

  @Test func xcodeTransaction() throws {
    let jws = try Vectors.trimmed(xcode + "xcode-signed-transaction")
    let t = try #require(try Fixtures.verifier(bundleId: bundle, environment: .xcode).verifyTransaction(jws).payload)
    #expect(t.originalTransactionId == "0" && t.transactionId == "0" && t.webOrderLineItemId == "0")
    #expect(t.productId == "pass.premium" && t.subscriptionGroupIdentifier == "6F3A93AB")
    #expect(t.purchaseDate == 1_697_679_936_049 && t.originalPurchaseDate == 1_697_679_936_049)
    #expect(t.expiresDate == 1_700_358_336_049)
    #expect(t.quantity == 1 && t.typedType == .autoRenewableSubscription && t.typedInAppOwnershipType == .purchased)
    #expect(t.signedDate == 1_697_679_936_056)
    #expect(t.isUpgraded == false && t.typedOfferType == .introductory)
    #expect(t.storefront == "USA" && t.storefrontId == "143441" && t.typedTransactionReason == .purchase)
  }

  @Test(arguments: [AppStoreEnvironment.sandbox, .production])
  func xcodeTransactionUnderRealRoots(environment: AppStoreEnvironment) throws {
    let jws = try Vectors.trimmed(xcode + "xcode-signed-transaction")
    let verifier = try Fixtures.verifier(
      root: "apple/roots/AppleRootCA-G3.cer", bundleId: bundle, environment: environment)
    #expect(verifier.verifyTransaction(jws).error?.code == .invalidChainLength)
  }

  @Test func xcodeRenewalInfo() throws {
    let jws = try Vectors.trimmed(xcode + "xcode-signed-renewal-info")
    let r = try #require(try Fixtures.verifier(bundleId: bundle, environment: .xcode).verifyRenewalInfo(jws).payload)
    #expect(r.originalTransactionId == "0" && r.autoRenewProductId == "pass.premium" && r.productId == "pass.premium")
    #expect(r.autoRenewStatus == 1 && r.signedDate == 1_697_679_936_711)
    #expect(r.recentSubscriptionStartDate == 1_697_679_936_049 && r.renewalDate == 1_700_358_336_049)
    #expect(r.expirationIntent == nil && r.gracePeriodExpiresDate == nil && r.isInBillingRetryPeriod == nil)
  }

  @Test func xcodeAppTransaction() throws {
    let jws = try Vectors.trimmed(xcode + "xcode-signed-app-transaction")
    let a = try #require(try Fixtures.verifier(bundleId: bundle, environment: .xcode).verifyAppTransaction(jws).payload)
    #expect(a.appAppleId == nil && a.applicationVersion == "1" && a.originalApplicationVersion == "1")
    #expect(a.originalPurchaseDate == -62_135_769_600_000)
    #expect(a.deviceVerification?.hasPrefix("cYUsXc53") == true)
    #expect(a.deviceVerificationNonce == "48c8b92d-ce0d-4229-bedf-e61b4f9cfc92")
    #expect(a.typedReceiptType == .xcode && a.receiptCreationDate == 1_697_680_122_257)
    let production = try Fixtures.verifier(
      root: "apple/roots/AppleRootCA-G3.cer", bundleId: bundle, environment: .production)
    #expect(production.verifyAppTransaction(jws).error?.code == .invalidChainLength)
  }

  @Test func realSandboxRenewalInfo() throws {
    let jws = try Vectors.trimmed("apple/real-jws/goiap-sandbox-renewalinfo-2023.jws")
    let verifier = try Fixtures.verifier(root: "apple/roots/AppleRootCA-G3.cer", bundleId: "co.ringalarm")
    let info = try #require(verifier.verifyRenewalInfo(jws).payload)
    #expect(info.originalTransactionId == "2000000335310644" && info.signedDate == 1_684_822_778_492)
    // A test root does not anchor Apple's real chain.
    #expect(try Fixtures.verifier().verifyRenewalInfo(jws).error?.code == .verificationFailure)
  }

  @Test func realSandboxTransaction() throws {
    let jws = try Vectors.trimmed("apple/real-jws/mingos-sandbox-transaction-consumable-2025.jws")
    let verifier = try Fixtures.verifier(root: "apple/roots/AppleRootCA-G3.cer", bundleId: "com.goodheartapp")
    let t = try #require(
      verifier.verifyTransaction(jws).payload, "\(String(describing: verifier.verifyTransaction(jws).error))")
    #expect(t.transactionId == "2000000847061981" && t.typedType == .consumable && t.price == 230_000)
    // Production-only app rejects it; production + allowSandbox accepts it.
    let production = try Fixtures.verifier(
      root: "apple/roots/AppleRootCA-G3.cer", bundleId: "com.goodheartapp", environment: .production)
    #expect(production.verifyTransaction(jws).error?.code == .invalidEnvironment)
    let lenient = try Fixtures.verifier(
      root: "apple/roots/AppleRootCA-G3.cer", bundleId: "com.goodheartapp", environment: .production, allowSandbox: true
    )
    #expect(lenient.verifyTransaction(jws).payload != nil)
  }

  @Test(arguments: ["AppleRootCA-G2.cer", "AppleIncRootCertificate.cer"])
  func otherAppleRootsDoNotAnchorJWS(root: String) throws {
    let jws = try Vectors.trimmed("apple/real-jws/mingos-sandbox-transaction-consumable-2025.jws")
    let verifier = try Fixtures.verifier(root: "apple/roots/" + root, bundleId: "com.goodheartapp")
    #expect(verifier.verifyTransaction(jws).error?.code == .verificationFailure)
  }
}

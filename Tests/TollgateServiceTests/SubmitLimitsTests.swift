import Foundation
import Testing
import TollgateCallers
import TollgateContract
import TollgateCore
import TollgateServer
import TollgateService
import TollgateStorage
import TollgateTesting

/// SubmitPurchase's bounds (issue 25): pending submissions per (caller, user) with signed ones
/// apart, each field no longer than its store makes it, and a byte budget per caller.
@Suite("SubmitPurchase limits per caller")
struct SubmitLimitsTests {
  typealias Fixture = EntitlementsResponderTests.Fixture

  static let attacker = CallerIdentity(name: "attacker", scopes: [.submit])
  static let backend = CallerIdentity(name: "backend", scopes: [.read, .submit])

  static func appStore(_ userId: String, receipt: String) -> Tollgate_V1_SubmitPurchaseRequest {
    var request = Tollgate_V1_SubmitPurchaseRequest()
    request.userID = userId
    request.store = .appStore
    request.receipt = receipt
    return request
  }

  static func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
  }

  /// Built like an Apple signed transaction (ES256, a chain of two DER certificates, a 64-byte
  /// signature); its signature is nobody's, which only the worker can tell.
  static func signedLooking(transactionId: String, signatureBytes: Int = 64) -> String {
    let certificate = Data([0x30, 0x82] + Array(repeating: 0x01, count: 300)).base64EncodedString()
    let header = #"{"alg":"ES256","x5c":["\#(certificate)","\#(certificate)"]}"#
    let payload = #"{"transactionId":"\#(transactionId)","bundleId":"com.example"}"#
    return [Array(header.utf8), Array(payload.utf8), Array(repeating: 7, count: signatureBytes)].map(base64URL)
      .joined(separator: ".")
  }

  @Test("a caller's full allowance for a user holds back neither another caller nor its own signed submission")
  func pendingPerCallerAndUser() async throws {
    var config = EntitlementsResponder.Config.defaults
    config.maximumPendingPerCallerAndUser = 3
    config.maximumPendingSignedPerCallerAndUser = 2
    let f = try await Fixture(records: [], responder: config)
    defer { f.dir.remove() }
    for number in 0..<3 {
      let bogus = Self.appStore("victim", receipt: "20000001\(number)")
      #expect(await f.service.submitPurchase(bogus, caller: Self.attacker).status == .pending)
    }
    let refused = await f.service.submitPurchase(Self.appStore("victim", receipt: "200000019"), caller: Self.attacker)
    #expect(refused.error.code == .resourceExhausted)
    // The app's backend is another caller: its submission for the victim is taken.
    let real = await f.service.submitPurchase(
      Self.appStore("victim", receipt: Self.signedLooking(transactionId: "1")), caller: Self.backend)
    #expect(real.status == .pending)
    #expect(!real.hasError)
    // The attacker's own signed-looking submissions have their own allowance, and it is bounded.
    for number in 0..<2 {
      let signed = Self.appStore("victim", receipt: Self.signedLooking(transactionId: "\(number)"))
      #expect(await f.service.submitPurchase(signed, caller: Self.attacker).status == .pending)
    }
    let signedRefused = await f.service.submitPurchase(
      Self.appStore("victim", receipt: Self.signedLooking(transactionId: "9")), caller: Self.attacker)
    #expect(signedRefused.error.code == .resourceExhausted)
    #expect(signedRefused.error.message.contains("signed"))
  }

  @Test("only a payload built like a signed one counts as signed: a dotted string or a short signature does not")
  func signedShape() async throws {
    var config = EntitlementsResponder.Config.defaults
    config.maximumPendingPerCallerAndUser = 1
    let f = try await Fixture(records: [], responder: config)
    defer { f.dir.remove() }
    #expect(
      await f.service.submitPurchase(Self.appStore("u", receipt: "2000000001"), caller: Self.attacker).status
        == .pending)
    let notSigned = [
      "a.b.c", Self.signedLooking(transactionId: "1", signatureBytes: 10),
      Self.base64URL(Array(#"{"alg":"none","x5c":[]}"#.utf8)) + ".e30."
        + Self.base64URL(Array(repeating: 1, count: 64)),
    ]
    for receipt in notSigned {
      #expect(
        await f.service.submitPurchase(Self.appStore("u", receipt: receipt), caller: Self.attacker).error.code
          == .resourceExhausted)
    }
    // Google Play: purchase data for the submitted token with an RSA-sized signature.
    var google = Tollgate_V1_SubmitPurchaseRequest()
    google.userID = "u"
    google.store = .googlePlay
    google.productID = "monthly"
    google.purchaseToken = "token-1"
    #expect(await f.service.submitPurchase(google, caller: Self.attacker).error.code == .resourceExhausted)
    google.googlePurchaseData = #"{"purchaseToken":"token-1","productId":"monthly"}"#
    google.googleSignature = Data(Array(repeating: 3, count: 256)).base64EncodedString()
    #expect(await f.service.submitPurchase(google, caller: Self.attacker).status == .pending)
    google.googlePurchaseData = #"{"purchaseToken":"another-token","productId":"monthly"}"#
    #expect(await f.service.submitPurchase(google, caller: Self.attacker).error.code == .resourceExhausted)
  }

  @Test("a field longer than its store makes it is INVALID_ARGUMENT; an app receipt may be long")
  func fieldSizesPerStore() async throws {
    let f = try await Fixture(records: [])
    defer { f.dir.remove() }
    func code(_ request: Tollgate_V1_SubmitPurchaseRequest) async -> Tollgate_V1_ErrorCode {
      await f.service.submitPurchase(request, caller: Self.attacker).error.code
    }
    let longJWS = Self.signedLooking(transactionId: String(repeating: "9", count: 40_000))
    #expect(await code(Self.appStore("u", receipt: longJWS)) == .invalidArgument)
    #expect(await code(Self.appStore("u", receipt: String(repeating: "7", count: 65))) == .invalidArgument)
    #expect(await code(Self.appStore("u", receipt: String(repeating: "M", count: 300_000))) == .invalidArgument)
    #expect(await code(Self.appStore("u", receipt: String(repeating: "M", count: 200_000))) == .unspecified)

    var google = Tollgate_V1_SubmitPurchaseRequest()
    google.userID = "u"
    google.store = .googlePlay
    google.productID = "monthly"
    google.purchaseToken = String(repeating: "t", count: 3_000)
    #expect(await code(google) == .invalidArgument)
    google.purchaseToken = "token"
    google.googlePurchaseData = String(repeating: "d", count: 9_000)
    google.googleSignature = "c2ln"
    #expect(await code(google) == .invalidArgument)
    google.googlePurchaseData = "{}"
    #expect(await code(google) == .unspecified)
    google.productID = String(repeating: "p", count: 300)
    #expect(await code(google) == .invalidArgument)

    var amazon = Tollgate_V1_SubmitPurchaseRequest()
    amazon.userID = "u"
    amazon.store = .amazon
    amazon.receiptID = String(repeating: "r", count: 2_000)
    amazon.amazonUserID = "amzn1.account.A"
    let refused = await f.service.submitPurchase(amazon, caller: Self.attacker)
    #expect(refused.error.code == .invalidArgument)
    #expect(refused.error.message.contains("receipt_id"))
    amazon.receiptID = "q1YqVbJSyjH28DT0cnAKNjd2NTc"
    #expect(await code(amazon) == .unspecified)
  }

  @Test("a caller's bytes per minute are bounded; another caller's budget is its own; it refills")
  func byteBudgetPerCaller() async throws {
    var config = EntitlementsResponder.Config.defaults
    config.submitBytesPerMinutePerCaller = 1 << 20
    let f = try await Fixture(records: [], responder: config)
    defer { f.dir.remove() }
    let receipt = String(repeating: "M", count: 250_000)
    for user in 0..<4 {
      #expect(
        await f.service.submitPurchase(Self.appStore("u\(user)", receipt: receipt), caller: Self.attacker).status
          == .pending)
    }
    let refused = await f.service.submitPurchase(Self.appStore("u4", receipt: receipt), caller: Self.attacker)
    #expect(refused.error.code == .resourceExhausted)
    #expect(refused.submissionID.isEmpty)
    #expect(
      await f.service.submitPurchase(Self.appStore("u4", receipt: receipt), caller: Self.backend).status == .pending)
    // Small submissions still fit what is left.
    #expect(
      await f.service.submitPurchase(Self.appStore("u5", receipt: "2000000001"), caller: Self.attacker).status
        == .pending)
    f.clock.advance(byMs: 15_000)
    #expect(
      await f.service.submitPurchase(Self.appStore("u4", receipt: receipt), caller: Self.attacker).status == .pending)
    #expect(
      await f.service.submitPurchase(Self.appStore("u6", receipt: receipt), caller: Self.attacker).error.code
        == .resourceExhausted)
  }
}

import Foundation
import GooglePlay
import GooglePlayGateway
import Logging
import Testing
import TollgateCore
import TollgateTesting
import TollgateWorker

/// A submitted Play Billing purchase (`INAPP_PURCHASE_DATA` and its signature, the public vector)
/// is checked against the app's licensing key before Google is asked.
@Suite("Play Billing signature at the gateway", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct GooglePlayBillingSignatureTests {
  static let directory = "google/play-billing-signature/"

  static func gateway(licensingKey: String?, nowMs: Int64 = 0) throws -> GooglePlayGateway {
    var app = GooglePlayAppSettings(packageName: "my.package")
    app.serviceAccountKeyEnv = "GOOGLE_KEY"
    app.pushAudience = "tollgate"
    app.licensingKey = licensingKey
    return try GooglePlayGateway(
      settings: GooglePlaySettings(apps: [app]),
      environment: ["GOOGLE_KEY": try Vectors.string("google/aporat-oauth/test-service-account-key.json")],
      httpClient: .shared, concurrency: 1, nowMs: { nowMs }, logger: Logger(label: "test.billing"))
  }

  static func submission(data: String, signature: String, token: String = "some-token", productId: String = "myproduct")
    -> PurchaseSubmission
  {
    var submission = PurchaseSubmission(userId: "u", store: .googlePlay, purchaseToken: token, productId: productId)
    submission.googlePurchaseData = data
    submission.googleSignature = signature
    return submission
  }

  @Test("a valid signature over the exact bytes passes; a wrong one, altered data or another token is refused")
  func checked() async throws {
    let key = try Vectors.string(Self.directory + "license_public_key.b64")
    let data = try Vectors.string(Self.directory + "inapp_purchase_data.json")
    let valid = try Vectors.string(Self.directory + "signature_valid.b64")
    let invalid = try Vectors.string(Self.directory + "signature_invalid.b64")
    let gateway = try Self.gateway(licensingKey: key)

    let reference = try await gateway.identify(Self.submission(data: data, signature: valid))
    #expect(reference.lookupId == "some-token" && reference.appId == "my.package")

    let refusals: [(String, PurchaseSubmission, String)] = [
      ("wrong signature", Self.submission(data: data, signature: invalid), "does not match"),
      (
        "altered data",
        Self.submission(data: data.replacingOccurrences(of: "user001", with: "user002"), signature: valid),
        "does not match"
      ),
      ("re-serialized data", Self.submission(data: data + " ", signature: valid), "does not match"),
      ("not base64", Self.submission(data: data, signature: "%%%"), "not base64"),
      ("another token", Self.submission(data: data, signature: valid, token: "other-token"), "another purchase token"),
      ("another product", Self.submission(data: data, signature: valid, productId: "other"), "for product myproduct"),
    ]
    for (name, submission, expected) in refusals {
      do throws(StoreFailure) {
        _ = try await gateway.identify(submission)
        Issue.record("\(name): accepted")
      } catch {
        #expect(error.kind == .final, "\(name)")
        #expect(error.message.contains(expected), "\(name): \(error.message)")
      }
    }
  }

  @Test("without a licensing key the data is not checked (Google's API still decides); a bad key is a config problem")
  func withoutKey() async throws {
    let data = try Vectors.string(Self.directory + "inapp_purchase_data.json")
    let gateway = try Self.gateway(licensingKey: nil)
    let reference = try await gateway.identify(Self.submission(data: data, signature: "anything"))
    #expect(reference.lookupId == "some-token")

    var app = GooglePlayAppSettings(packageName: "my.package")
    app.serviceAccountKeyEnv = "GOOGLE_KEY"
    app.pushAudience = "tollgate"
    app.licensingKey = "not a key"
    let problems = GooglePlaySettings(apps: [app]).problems(
      catalog: ProductCatalog(apps: [.init(id: "a", store: .googlePlay, packageName: "my.package")]),
      environment: ["GOOGLE_KEY": "{}"])
    #expect(problems.contains { $0.contains("licensingKey is not a base64 RSA public key") })
  }
}

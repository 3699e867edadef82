import AmazonAppstore
import Foundation
import Testing
import TollgateCore
import TollgateWorker

@testable import AmazonGateway

@Suite("The amazon section of the worker's config")
struct AmazonSettingsTests {
  static let catalog = ProductCatalog(apps: [AppConfig(id: "kindle", store: .amazon, amazonAppId: "com.example.amazon")]
  )

  @Test("a complete app has no problems; each mistake is named with where it is")
  func problems() throws {
    var app = AmazonAppSettings(appPackageName: "com.example.amazon")
    app.sharedSecretEnv = "SECRET"
    app.allowedTopicArns = ["arn:aws:sns:us-east-1:123456789012:rtn"]
    #expect(AmazonSettings(apps: [app]).problems(catalog: Self.catalog, environment: ["SECRET": "s"]) == [])

    var bad = app
    bad.environment = "staging"
    bad.allowedTopicArns = ["rtn"]
    bad.trustedCertificateURLPrefixes = ["ftp://x/"]
    let problems = AmazonSettings(apps: [bad, bad]).problems(catalog: Self.catalog, environment: [:])
    #expect(problems.contains { $0.hasPrefix("amazon[0] (com.example.amazon): environment must be") })
    #expect(problems.contains { $0.contains("sharedSecretEnv names $SECRET, which is not set") })
    #expect(problems.contains { $0.contains("rtn is not an SNS topic ARN") })
    #expect(problems.contains { $0.contains("ftp://x/ must be an http(s) URL") })
    #expect(problems.contains { $0 == "amazon[1]: com.example.amazon is configured twice" })

    let stranger = AmazonAppSettings(appPackageName: "com.other")
    #expect(
      AmazonSettings(apps: [stranger]).problems(catalog: Self.catalog, environment: [:]).contains {
        $0.contains("not among \"apps\" with store amazon")
      })
  }

  @Test("config/tollgate.example.json's amazon section decodes and is valid once its secret is set")
  func example() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../config/tollgate.example.json").standardized.path
    let data = try #require(FileManager.default.contents(atPath: path))
    let configuration = try WorkerConfiguration.decode(data)
    let amazon = try #require(try AmazonSettings.section(in: data))
    #expect(amazon.apps.map(\.appPackageName) == ["com.example.amazon"])
    #expect(
      amazon.problems(
        catalog: configuration.catalog, environment: ["TOLLGATE_AMAZON_SHARED_SECRET": "s"]) == [])
    #expect(amazon.problems(catalog: configuration.catalog, environment: [:]).count == 1)
  }

  @Test(
    "RVS trouble is retried, the shared secret is the operator's, 400 not yet a no, 410 gone, 497 final")
  func classification() {
    func kind(_ code: RVSError.Code) -> StoreFailure.Kind {
      RVSError(code: code, message: "m").classified.kind
    }
    #expect(kind(.throttled) == .transient)
    #expect(kind(.serverError) == .transient)
    #expect(kind(.transport) == .transient)
    #expect(kind(.invalidResponse) == .transient)
    #expect(kind(.invalidSharedSecret) == .needsOperator)
    #expect(kind(.invalidUserId) == .final)
    #expect(kind(.invalidReceipt) == .notFound)
    #expect(kind(.receiptNoLongerValid) == .gone)
    #expect(RVSError(code: .throttled, message: "m", retryAfterMs: 2_000).classified.retryAfterMs == 2_000)
  }
}

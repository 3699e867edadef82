import Foundation
import GooglePlay
import GooglePlayGateway
import Testing
import TollgateCore
import TollgateWorker

@Suite("The googlePlay section of the worker's config")
struct GooglePlaySettingsTests {
  static let catalog = """
    "apps": [{"id": "android", "store": "google_play", "packageName": "com.example.app"}],
    "entitlements": [{"id": "premium"}],
    "products": [{"productId": "monthly", "store": "google_play", "entitlements": ["premium"]}]
    """

  @Test("a complete app has no problems, and a worker with only Google configured is valid")
  func valid() throws {
    let json = """
      {\(Self.catalog),
       "googlePlay": [{"packageName": "com.example.app", "serviceAccountKeyEnv": "KEY",
                       "pushAudience": "https://tollgate.example.com/notifications/google",
                       "pushServiceAccount": "rtdn-push@example.iam.gserviceaccount.com"}]}
      """
    let data = Data(json.utf8)
    let settings = try #require(try GooglePlaySettings.section(in: data))
    #expect(settings.apps.first?.acknowledge == true)
    #expect(settings.apps.first?.allowTestPurchases == false)
    #expect(settings.apps.first?.acceptAnyPushServiceAccount == false)
    #expect(settings.apps.first?.transferFreshnessMs == 86_400_000)
    let problems = try WorkerConfiguration.decode(data).problems(environment: ["KEY": "{}"], stores: [settings])
    #expect(problems == [])
  }

  @Test("without pushServiceAccount the section is refused unless acceptAnyPushServiceAccount is set (issue 25 item 5)")
  func pushServiceAccountRequired() throws {
    func problems(_ push: String) throws -> [String] {
      let json = """
        {\(Self.catalog),
         "googlePlay": [{"packageName": "com.example.app", "serviceAccountKeyEnv": "KEY", "pushAudience": "a"\(push)}]}
        """
      let data = Data(json.utf8)
      let settings = try #require(try GooglePlaySettings.section(in: data))
      return try WorkerConfiguration.decode(data).problems(environment: ["KEY": "{}"], stores: [settings])
    }
    let missing = try problems("")
    #expect(missing.count == 1)
    #expect(missing.first?.contains("googlePlay[0] (com.example.app): pushServiceAccount is required") == true)
    #expect(missing.first?.contains("acceptAnyPushServiceAccount: true") == true)
    #expect(try problems(#", "acceptAnyPushServiceAccount": true"#) == [])
    #expect(try problems(#", "pushServiceAccount": "p@x.iam.gserviceaccount.com""#) == [])
    #expect(try problems(#", "acceptAnyPushServiceAccount": false"#).count == 1)
    #expect(
      try problems(#", "pushServiceAccount": "p@x", "acceptAnyPushServiceAccount": true"#)
        == ["googlePlay[0] (com.example.app): set pushServiceAccount or acceptAnyPushServiceAccount: true, not both"])
    #expect(
      try problems(#", "pushServiceAccount": "p@x", "transferFreshnessMs": -1"#)
        == ["googlePlay[0] (com.example.app): transferFreshnessMs must not be negative"])
  }

  @Test("every problem at once, with where it is")
  func problems() throws {
    let json = """
      {\(Self.catalog),
       "googlePlay": [{"packageName": "com.example.app", "serviceAccountKeyEnv": "MISSING", "jwksURL": "ftp://x"},
                      {"packageName": "com.other"}, {"packageName": "com.example.app", "serviceAccountKeyEnv": "KEY",
                       "pushAudience": "a"}]}
      """
    let data = Data(json.utf8)
    let settings = try #require(try GooglePlaySettings.section(in: data))
    let text = try WorkerConfiguration.decode(data).problems(environment: ["KEY": "{}"], stores: [settings])
      .joined(separator: "\n")
    #expect(text.contains("googlePlay[0] (com.example.app): serviceAccountKeyEnv names $MISSING, which is not set"))
    #expect(text.contains("googlePlay[0] (com.example.app): pushAudience is required"))
    #expect(text.contains("googlePlay[0] (com.example.app): jwksURL must be http(s)"))
    #expect(text.contains("googlePlay[1] (com.other): serviceAccountKeyEnv or serviceAccountKeyFile is required"))
    #expect(text.contains("googlePlay[1]: package name com.other is not among"))
    #expect(text.contains("googlePlay[2]: package name com.example.app is configured twice"))
  }
}

@Suite("Google Play failures, classified")
struct GooglePlayFailureTests {
  func kind(_ code: AndroidPublisherError.Code, reason: String? = nil) -> StoreFailure.Kind {
    AndroidPublisherError(code: code, message: "m", reason: reason).classified.kind
  }

  @Test("Google's trouble is retried, the service account is the operator's, 404 not yet a no, 410 gone, 400 final")
  func classification() {
    #expect(kind(.rateLimited) == .transient)
    #expect(kind(.serverError) == .transient)
    #expect(kind(.transport) == .transient)
    #expect(kind(.invalidResponse) == .transient)
    #expect(kind(.unauthorized) == .needsOperator)
    #expect(kind(.forbidden) == .needsOperator)
    #expect(kind(.credentials) == .needsOperator)
    #expect(kind(.notFound) == .notFound)
    #expect(kind(.badRequest) == .final)
    #expect(kind(.gone) == .gone)
  }

  @Test("a token of another app is final and says it may be a replay; Retry-After travels")
  func details() {
    let replay = AndroidPublisherError(
      code: .badRequest, message: "m", httpStatus: 400, reason: "purchaseTokenDoesNotMatchPackageName"
    ).classified
    #expect(replay.kind == .final)
    #expect(replay.message.contains("possibly a replayed purchase token"))
    let slow = AndroidPublisherError(code: .rateLimited, message: "m", httpStatus: 429, retryAfterMs: 3_000).classified
    #expect(slow.retryAfterMs == 3_000)
  }
}

@Suite("The example config's Google Play section")
struct GooglePlayExampleConfigTests {
  @Test("config/tollgate.example.json's googlePlay section decodes and is valid once its key file exists")
  func example() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../config/tollgate.example.json").standardized.path
    let data = try #require(FileManager.default.contents(atPath: path))
    let configuration = try WorkerConfiguration.decode(data)
    var google = try #require(try GooglePlaySettings.section(in: data))
    #expect(google.apps.map(\.packageName) == ["com.example.android"])
    #expect(configuration.catalog.entitlements(forProduct: "lifetime", store: .googlePlay) == ["premium", "offline"])
    // The key file named there does not exist on a build machine: that is the one problem.
    let problems = google.problems(catalog: configuration.catalog, environment: [:])
    #expect(problems.count == 1 && problems[0].contains("cannot be read"), "\(problems)")
    google.apps[0].serviceAccountKeyFile = nil
    google.apps[0].serviceAccountKeyEnv = "GOOGLE_KEY"
    #expect(google.problems(catalog: configuration.catalog, environment: ["GOOGLE_KEY": "{}"]) == [])
  }
}

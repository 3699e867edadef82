import AsyncHTTPClient
import Foundation
import GooglePlay
import Logging
import StoreSimulator
import Testing
import TollgateCore
import TollgateTesting

/// A simulator with Google Play pushing to a scripted receiver, and the PRODUCTION Google code
/// pointed at it: the service-account key file it wrote, `GoogleAccessTokenProvider` against its
/// token endpoint, `AndroidPublisherClient`, and `PubSubPushAuthenticator` over its JWKS.
struct GoogleHarness {
  static let packageName = "com.example.android"
  static let audience = "https://tollgate.example/notifications/google"
  static let startMs = Harness.startMs
  static let logger = Harness.logger

  let sim: StoreSimulator
  let receiver: ScriptedHTTPServer
  let directory: TemporaryDirectory
  let tokens: GoogleAccessTokenProvider
  let api: AndroidPublisherClient

  static func run(
    receiverReplies: [Int] = Array(repeating: 200, count: 60), retryDelaysMs: [Int64] = [50, 100],
    configure: (inout StoreSimulator.Config) -> Void = { _ in }, _ body: (GoogleHarness) async throws -> Void
  ) async throws {
    let receiver = try await ScriptedHTTPServer.start()
    for status in receiverReplies { receiver.enqueue("POST", "/google", .init(status: status)) }
    let directory = try TemporaryDirectory(prefix: "storesim-google")
    var config = StoreSimulator.Config.defaults
    config.startTimeMs = startMs
    config.dataDirectory = directory.path
    config.notificationRetryDelaysMs = retryDelaysMs
    config.google.apps[0].notificationURL = receiver.baseURL + "/google"
    config.google.apps[0].pushAudience = audience
    configure(&config)
    let sim = try await StoreSimulator.start(config: config, logger: logger)
    let harness: GoogleHarness
    do {
      let path = try #require(sim.googleServiceAccountKeyPath)
      let key = try ServiceAccountKey.load(from: .file(path), environment: [:])
      let tokens = GoogleAccessTokenProvider(
        key: key, httpClient: .shared, now: { NotificationDispatcherClock.realNowMs() }, logger: logger)
      let api = AndroidPublisherClient(
        config: AndroidPublisherConfig(baseURL: sim.googleAPIBaseURL, timeout: .seconds(5)), httpClient: .shared,
        accessToken: { try await tokens.accessToken() }, logger: logger)
      harness = GoogleHarness(sim: sim, receiver: receiver, directory: directory, tokens: tokens, api: api)
    } catch {
      await sim.stop()
      await receiver.stop()
      directory.remove()
      throw error
    }
    do {
      try await body(harness)
    } catch {
      await harness.stop()
      throw error
    }
    await harness.stop()
  }

  func stop() async {
    await sim.stop()
    await receiver.stop()
    directory.remove()
  }

  // MARK: Reading through the production client

  func subscriptionV2(_ token: String) async throws -> SubscriptionPurchaseV2 {
    let body = try await api.subscriptionV2(packageName: Self.packageName, purchaseToken: token)
    return try JSONDecoder().decode(SubscriptionPurchaseV2.self, from: body)
  }

  /// The production mapping of the token's subscriptionsv2 resource, read at the virtual now.
  func mapping(_ token: String) async throws -> GooglePlayMapping {
    GooglePlayMapping(
      subscription: try await subscriptionV2(token), purchaseToken: token, packageName: Self.packageName,
      asOfMs: sim.clockNowMs)
  }

  /// What Core makes of the token at the virtual now (or `atMs`).
  func evaluate(_ token: String, atMs: Int64? = nil) async throws -> SubscriptionEvaluation {
    SubscriptionLifecycle.evaluate(try await mapping(token).history, at: atMs ?? sim.clockNowMs)
  }

  // MARK: Pushes

  /// The pushes the receiver got: envelope, notification, Authorization header.
  func pushes() throws -> [(envelope: PubSubPushEnvelope, notification: DeveloperNotification, authorization: String?)]
  {
    try receiver.recorded.filter { $0.path == "/google" }.map { request in
      let envelope = try JSONDecoder().decode(PubSubPushEnvelope.self, from: Data(request.body))
      return (envelope, try envelope.developerNotification(), request.headers["authorization"])
    }
  }

  /// `subscriptionNotification.notificationType` of every push, in arrival order.
  func subscriptionTypes(for token: String? = nil) throws -> [Int] {
    try pushes().compactMap { push in
      guard let sub = push.notification.subscriptionNotification, token == nil || sub.purchaseToken == token else {
        return nil
      }
      return sub.notificationType
    }
  }

  /// The production authenticator, over the simulator's JWKS, at the virtual now.
  func authenticator(serviceAccount: String = StoreSimulator.GoogleApp().pushServiceAccount)
    -> PubSubPushAuthenticator
  {
    let sim = self.sim
    let keys = GoogleKeySetCache(
      config: .init(url: sim.googleJWKSURL), httpClient: .shared, now: { sim.clockNowMs }, logger: Self.logger)
    return PubSubPushAuthenticator(
      verifier: OIDCTokenVerifier(config: .init(audience: Self.audience, serviceAccountEmail: serviceAccount)),
      keys: keys, now: { sim.clockNowMs }, logger: Self.logger)
  }
}

/// The real clock, for the token provider (Google's token endpoint runs on real time).
enum NotificationDispatcherClock {
  static func realNowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

@Suite("Store simulator, Google Play: harness")
struct StoreSimulatorGoogleHarnessTests {
  @Test("the key file it writes is a Google service-account key whose token_uri is the simulator's")
  func keyFile() async throws {
    try await GoogleHarness.run { harness in
      let path = try #require(harness.sim.googleServiceAccountKeyPath)
      let json = try #require(
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
      #expect(json["type"] as? String == "service_account")
      #expect(json["token_uri"] as? String == harness.sim.googleTokenURI)
      #expect((json["private_key"] as? String)?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
      #expect((json["private_key_id"] as? String)?.count == 40)
      #expect(json["client_email"] as? String == harness.sim.googleServiceAccountEmail)
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
      #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }
  }
}

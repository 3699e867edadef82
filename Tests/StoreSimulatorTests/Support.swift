import AppStore
import AsyncHTTPClient
import Foundation
import Logging
import StoreSimulator
import TollgateCrypto
import TollgateTesting

/// A simulator with one app (API key, shared secret, notifications to a scripted receiver),
/// the real API client and verifier pointed at it.
struct Harness {
  static let bundleId = "com.example.app"
  static let appAppleId: Int64 = 1_234_567_890
  static let startMs: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z
  static let logger = Logger(label: "storesim.test", factory: { _ in SwiftLogNoOpLogHandler() })

  let sim: StoreSimulator
  let receiver: ScriptedHTTPServer
  let apiKey: P256PrivateKey
  let token: AppStoreServerAPIToken

  static func start(retryDelaysMs: [Int64] = [50, 100], receiverReplies: [Int] = Array(repeating: 200, count: 40))
    async throws -> Harness
  {
    let receiver = try await ScriptedHTTPServer.start()
    for status in receiverReplies { receiver.enqueue("POST", "/apple", .init(status: status)) }
    let apiKey = try P256PrivateKey.generate()
    let pem =
      "-----BEGIN PUBLIC KEY-----\n" + Base64.encode(try apiKey.publicKey.derRepresentation())
      + "\n-----END PUBLIC KEY-----\n"
    var app = StoreSimulator.AppleApp(bundleId: bundleId, appAppleId: appAppleId)
    app.sharedSecret = "s3cret"
    app.apiKey = .init(keyId: "KEY123", issuerId: "issuer-1", publicKeyPEM: pem)
    app.notificationURL = receiver.baseURL + "/apple"
    var config = StoreSimulator.Config.defaults
    config.startTimeMs = startMs
    config.apple.apps = [app]
    config.notificationRetryDelaysMs = retryDelaysMs
    let sim = try await StoreSimulator.start(config: config, logger: logger)
    let token = try AppStoreServerAPIToken(
      privateKeyPEM: try apiKey.pkcs8PEM(), keyId: "KEY123", issuerId: "issuer-1", bundleId: bundleId)
    return Harness(sim: sim, receiver: receiver, apiKey: apiKey, token: token)
  }

  /// Starts a harness, runs `body`, stops it (also when `body` throws).
  static func run(
    retryDelaysMs: [Int64] = [50, 100], receiverReplies: [Int] = Array(repeating: 200, count: 40),
    _ body: (Harness) async throws -> Void
  ) async throws {
    let harness = try await start(retryDelaysMs: retryDelaysMs, receiverReplies: receiverReplies)
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
  }

  func client(sandbox: Bool = true) -> AppStoreServerAPIClient {
    let token = self.token
    return AppStoreServerAPIClient(
      config: AppStoreServerAPIConfig(baseURL: sim.baseURL + (sandbox ? "/sandbox" : "")), httpClient: .shared,
      bearerToken: { try token.token() }, logger: Self.logger)
  }

  var verifier: SignedDataVerifier {
    SignedDataVerifier(
      config: .init(
        rootCertificates: [sim.rootCertificate], bundleId: Self.bundleId, appAppleId: Self.appAppleId,
        environment: .sandbox))
  }

  func transaction(_ signed: String?) throws -> JWSTransactionDecodedPayload {
    let result = verifier.verifyTransaction(signed ?? "")
    if let error = result.error { throw error }
    return try unwrap(result.payload)
  }

  func renewal(_ signed: String?) throws -> JWSRenewalInfoDecodedPayload {
    let result = verifier.verifyRenewalInfo(signed ?? "")
    if let error = result.error { throw error }
    return try unwrap(result.payload)
  }

  /// The verified notifications the receiver got, in arrival order.
  func received() throws -> [ResponseBodyV2DecodedPayload] {
    try receiver.recorded.filter { $0.path == "/apple" }.map { request in
      let signed = request.jsonBody?["signedPayload"] as? String ?? ""
      let result = verifier.verifyNotification(signed)
      if let error = result.error { throw error }
      return try unwrap(result.payload)
    }
  }

  /// `TYPE` or `TYPE/SUBTYPE` of each notification the simulator recorded.
  var sentTypes: [String] {
    sim.notifications.map { $0.notificationType + ($0.subtype.map { "/\($0)" } ?? "") }
  }

  /// The status the API reports for the subscription of `id`.
  func status(_ id: String) async throws -> Int? {
    try await client().getAllSubscriptionStatuses(transactionId: id).data?.first?.lastTransactions?.first?.status
  }
}

struct Missing: Error {}

func unwrap<T>(_ value: T?) throws -> T {
  guard let value else { throw Missing() }
  return value
}

/// Polls `condition` for up to `seconds` (real time: retries are real-time).
func eventually(seconds: Double = 5, _ condition: () throws -> Bool) async throws -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if try condition() { return true }
    try await Task.sleep(for: .milliseconds(25))
  }
  return try condition()
}

import AsyncHTTPClient
import Foundation
import Logging
import StoreSimulator
import Testing
import TollgateCrypto
import TollgateTesting

/// A simulator with the Amazon Appstore publishing Real-Time Notifications over SNS to a
/// scripted receiver, and the reading side written here from Amazon's and AWS's documents
/// (independently of the simulator's code): RVS requests with every path segment
/// percent-encoded, SNS messages checked against the served certificate over the canonical
/// string AWS defines.
struct AmazonHarness {
  static let packageName = "com.example.amazon"
  static let secret = "sim-shared-secret"
  static let startMs = Harness.startMs
  static let path = "/amazon"

  let sim: StoreSimulator
  let receiver: ScriptedHTTPServer

  static func run(
    confirm: Bool = true, receiverReplies: [Int] = Array(repeating: 200, count: 80),
    retryDelaysMs: [Int64] = [50, 100],
    configure: (inout StoreSimulator.Config) -> Void = { _ in }, _ body: (AmazonHarness) async throws -> Void
  ) async throws {
    let receiver = try await ScriptedHTTPServer.start()
    for status in receiverReplies { receiver.enqueue("POST", path, .init(status: status)) }
    var config = StoreSimulator.Config.defaults
    config.startTimeMs = startMs
    config.notificationRetryDelaysMs = retryDelaysMs
    config.amazon.apps[0].notificationURL = receiver.baseURL + path
    configure(&config)
    let sim: StoreSimulator
    do {
      sim = try await StoreSimulator.start(config: config, logger: Harness.logger)
    } catch {
      await receiver.stop()
      throw error
    }
    let harness = AmazonHarness(sim: sim, receiver: receiver)
    do {
      if confirm { try await harness.confirmSubscription() }
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

  // MARK: SNS, as a receiver reads it

  /// Every SNS message the receiver got (JSON objects), in arrival order.
  var messages: [[String: Any]] {
    receiver.recorded.filter { $0.method == "POST" && $0.path == Self.path }.compactMap(\.jsonBody)
  }

  /// The RTN messages of the `Notification`s received, decoded.
  var notifications: [[String: Any]] {
    messages.filter { $0["Type"] as? String == "Notification" }.compactMap { message in
      (message["Message"] as? String).flatMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    }
  }

  var notificationTypes: [String] { notifications.compactMap { $0["notificationType"] as? String } }

  /// Waits until `count` RTN messages have arrived.
  func waitForNotifications(_ count: Int) async throws {
    let arrived = try await eventually { notifications.count >= count }
    #expect(arrived, "expected \(count) notifications, got \(notificationTypes)")
  }

  /// GETs the SubscribeURL of the latest SubscriptionConfirmation, as a receiver confirms.
  func confirmSubscription() async throws {
    let confirmation = try #require(messages.last { $0["Type"] as? String == "SubscriptionConfirmation" })
    #expect(try await Self.verifySignature(confirmation))
    let url = try #require(confirmation["SubscribeURL"] as? String)
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
    let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
    #expect(response.status.code == 200)
    #expect(body.contains("<ConfirmSubscriptionResponse"))
    #expect(body.contains("<SubscriptionArn>\(try sim.amazonTopicArn()):"))
  }

  /// The string AWS signs: `Key\nValue\n` for Message, MessageId, Subject (if present),
  /// Timestamp, TopicArn, Type (Notification) or Message, MessageId, SubscribeURL, Timestamp,
  /// Token, TopicArn, Type (SubscriptionConfirmation).
  static func stringToSign(_ message: [String: Any]) -> String {
    let keys =
      message["Type"] as? String == "Notification"
      ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
      : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"]
    return keys.compactMap { key in (message[key] as? String).map { "\(key)\n\($0)\n" } }.joined()
  }

  /// Fetches `SigningCertURL` and checks `Signature` over the string to sign (SHA1withRSA for
  /// SignatureVersion 1, SHA256withRSA for 2).
  static func verifySignature(_ message: [String: Any]) async throws -> Bool {
    let url = try #require(message["SigningCertURL"] as? String)
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
    let pem = String(buffer: try await response.body.collect(upTo: 1 << 16))
    let key = try Certificate(pem: pem).rsaPublicKey()
    let signature = try #require(Base64.decode(message["Signature"] as? String ?? ""))
    let bytes = Array(stringToSign(message).utf8)
    switch message["SignatureVersion"] as? String {
    case "1": return RSASHA1.isValidSignature(signature, for: bytes, publicKey: key)
    case "2": return RS256.isValidSignature(signature, for: bytes, publicKey: key)
    default: return false
    }
  }

  // MARK: RVS, as a client calls it

  /// Each path segment percent-encoded: only unreserved characters stay as they are.
  static func encoded(_ segment: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
  }

  func rvs(_ receiptId: String, user: String, secret: String = AmazonHarness.secret, sandbox: Bool = false)
    async throws -> RawAnswer
  {
    let url =
      (sandbox ? sim.amazonRVSSandboxBaseURL : sim.amazonRVSBaseURL) + "/version/1.0/verifyReceiptId/developer/"
      + Self.encoded(secret) + "/user/" + Self.encoded(user) + "/receiptId/" + Self.encoded(receiptId)
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
    let body = try await response.body.collect(upTo: 1 << 20)
    return RawAnswer(
      status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"),
      body: Array(body.readableBytesView))
  }

  /// The RVS receipt of a purchase (200 expected).
  func receipt(_ purchase: AmazonPurchaseResult, receiptId: String? = nil) async throws -> [String: Any] {
    let answer = try await rvs(
      receiptId ?? purchase.receiptId, user: purchase.userId, sandbox: purchase.testTransaction)
    #expect(answer.status == 200, "\(answer.text)")
    return try #require(answer.json)
  }
}

@Suite("Store simulator, Amazon: SNS deliveries and subscription confirmation")
struct StoreSimulatorAmazonHarnessTests {
  @Test("nothing is delivered before the SubscribeURL is visited; then what was held arrives, signed")
  func confirmationHoldsNotifications() async throws {
    try await AmazonHarness.run(confirm: false) { harness in
      let confirmations = harness.messages.filter { $0["Type"] as? String == "SubscriptionConfirmation" }
      #expect(confirmations.count == 1)
      let confirmation = try #require(confirmations.first)
      #expect(confirmation["TopicArn"] as? String == "arn:aws:sns:us-east-1:123456789012:tollgate-sim-rtn")
      #expect((confirmation["SubscribeURL"] as? String)?.hasPrefix(harness.sim.baseURL + "/sns/confirm?") == true)
      #expect(confirmation["Token"] as? String != nil)
      let headers = try #require(harness.receiver.recorded.first?.headers)
      #expect(headers["x-amz-sns-message-type"] == "SubscriptionConfirmation")
      #expect(headers["content-type"] == "text/plain; charset=UTF-8")
      #expect(try harness.sim.amazonNotificationEndpoint() == "pendingConfirmation")

      let purchase = try await harness.sim.amazonPurchase(.init(sku: "com.example.premium.monthly"))
      try await Task.sleep(for: .milliseconds(100))
      #expect(harness.notifications.isEmpty, "held until confirmed")
      let snapshot = try harness.sim.amazonReceipt(purchase.receiptId)
      #expect(snapshot.notificationEndpoint == "pendingConfirmation")
      #expect(snapshot.heldNotifications == 1)

      // A wrong token confirms nothing.
      let wrong = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: harness.sim.baseURL + "/sns/confirm?Action=ConfirmSubscription&Token=nope"),
        timeout: .seconds(5))
      #expect(wrong.status.code == 404)
      #expect(harness.notifications.isEmpty)

      try await harness.confirmSubscription()
      try await harness.waitForNotifications(1)
      #expect(harness.notificationTypes == ["SUBSCRIPTION_PURCHASED"])
      #expect(try harness.sim.amazonNotificationEndpoint() == "confirmed")
      #expect(try harness.sim.amazonReceipt(purchase.receiptId).heldNotifications == 0)
    }
  }

  @Test("a Notification: SNS's fields and headers, the RTN message, a signature that verifies and fails when tampered")
  func notificationShapeAndSignature() async throws {
    try await AmazonHarness.run { harness in
      let purchase = try await harness.sim.amazonPurchase(.init(sku: "com.example.premium.monthly"))
      try await harness.waitForNotifications(1)
      let message = try #require(harness.messages.last)
      #expect(message["Type"] as? String == "Notification")
      #expect(message["SignatureVersion"] as? String == "2")
      #expect(message["SigningCertURL"] as? String == harness.sim.amazonSigningCertificateURL)
      #expect(harness.sim.amazonSigningCertificateURL.hasPrefix(harness.sim.amazonSNSCertificateURLPrefix))
      #expect((message["UnsubscribeURL"] as? String)?.hasPrefix(harness.sim.baseURL + "/sns/") == true)
      #expect(message["Timestamp"] as? String == "2026-01-01T00:00:00.000Z")
      #expect(message["Subject"] == nil)
      #expect(try await AmazonHarness.verifySignature(message))
      var tampered = message
      tampered["Message"] = (message["Message"] as? String ?? "").replacingOccurrences(of: "PURCHASED", with: "RENEWED")
      #expect(try await AmazonHarness.verifySignature(tampered) == false)

      let request = try #require(harness.receiver.recorded.last)
      #expect(request.headers["x-amz-sns-message-type"] == "Notification")
      #expect(request.headers["x-amz-sns-message-id"] == message["MessageId"] as? String)
      #expect(request.headers["x-amz-sns-topic-arn"] == message["TopicArn"] as? String)
      #expect(request.headers["x-amz-sns-subscription-arn"]?.hasPrefix(message["TopicArn"] as? String ?? "-") == true)
      #expect(request.headers["content-type"] == "text/plain; charset=UTF-8")

      let rtn = try #require(harness.notifications.last)
      #expect(rtn["appPackageName"] as? String == AmazonHarness.packageName)
      #expect(rtn["appUserId"] as? String == purchase.userId)
      #expect(rtn["receiptId"] as? String == purchase.receiptId)
      #expect((rtn["relatedReceipts"] as? [String: Any])?.isEmpty == true)
      #expect((rtn["timestamp"] as? NSNumber)?.int64Value == AmazonHarness.startMs)
      #expect(rtn["betaProductTransaction"] as? Bool == false)

      let served = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: harness.sim.amazonSigningCertificateURL), timeout: .seconds(5))
      #expect(String(buffer: try await served.body.collect(upTo: 1 << 16)) == harness.sim.amazonSigningCertificatePEM)
    }
  }

  @Test("visiting the UnsubscribeURL holds notifications again; a new notification URL is confirmed anew")
  func unsubscribe() async throws {
    try await AmazonHarness.run { harness in
      _ = try await harness.sim.amazonPurchase(.init(sku: "com.example.coins"))
      try await harness.waitForNotifications(1)
      let unsubscribeURL = try #require(harness.messages.last?["UnsubscribeURL"] as? String)
      let answer = try await HTTPClient.shared.execute(HTTPClientRequest(url: unsubscribeURL), timeout: .seconds(5))
      #expect(answer.status.code == 200)
      #expect(try harness.sim.amazonNotificationEndpoint() == "pendingConfirmation")
      _ = try await harness.sim.amazonPurchase(.init(sku: "com.example.coins"))
      try await Task.sleep(for: .milliseconds(100))
      #expect(harness.notifications.count == 1, "held while unsubscribed")
      try await harness.sim.amazonSetNotificationURL(harness.receiver.baseURL + AmazonHarness.path)
      try await harness.confirmSubscription()
      try await harness.waitForNotifications(2)
    }
  }

  @Test("SignatureVersion 1 signs with SHA1withRSA")
  func signatureVersion1() async throws {
    let configure: (inout StoreSimulator.Config) -> Void = { $0.amazon.signatureVersion = 1 }
    try await AmazonHarness.run(configure: configure) { harness in
      _ = try await harness.sim.amazonPurchase(.init(sku: "com.example.lifetime"))
      try await harness.waitForNotifications(1)
      let message = try #require(harness.messages.last)
      #expect(message["SignatureVersion"] as? String == "1")
      #expect(try await AmazonHarness.verifySignature(message))
      var asVersion2 = message
      asVersion2["SignatureVersion"] = "2"
      #expect(try await AmazonHarness.verifySignature(asVersion2) == false)
    }
  }

  @Test("the signing key and certificate are kept in the data directory across restarts")
  func certificatePersists() async throws {
    let directory = try TemporaryDirectory(prefix: "storesim-amazon")
    defer { directory.remove() }
    var config = StoreSimulator.Config.defaults
    config.dataDirectory = directory.path
    let first = try await StoreSimulator.start(config: config, logger: Harness.logger)
    let pem = first.amazonSigningCertificatePEM
    await first.stop()
    #expect(FileManager.default.fileExists(atPath: directory.path + "/amazon-sns-cert.pem"))
    let second = try await StoreSimulator.start(config: config, logger: Harness.logger)
    #expect(second.amazonSigningCertificatePEM == pem)
    #expect(try second.amazonSigningCertificate.rsaPublicKey().derRepresentation().isEmpty == false)
    await second.stop()
  }
}

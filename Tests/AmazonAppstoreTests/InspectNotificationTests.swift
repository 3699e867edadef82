import AmazonAppstore
import Foundation
import Testing
import TollgateCrypto
import TollgateTesting

/// `inspect amazon-notification` on the real AWS-signed SNS messages (with the genuine signing
/// certificate of the time), tampered copies of them, and messages signed by a test certificate
/// for the paths the real ones cannot reach.
@Suite(
  "inspect amazon-notification: signature and summary",
  .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct InspectNotificationTests {
  static func certificate() throws -> Certificate { try Certificate(pem: try AmazonVectors.snsCertificatePEM()) }

  static func text(_ file: String) throws -> String {
    String(decoding: try AmazonVectors.data("sns-aws-php-sns-message-validator/\(file)"), as: UTF8.self)
  }

  static func inspect(_ text: String, certificate: Certificate?, at: Int64? = nil) throws -> AmazonInspection.Report {
    try AmazonInspection.inspectNotification(text, certificate: certificate, atMs: at)
  }

  /// The vector `file` with `change` applied to its JSON object.
  static func tampered(_ file: String, _ change: (inout [String: Any]) -> Void) throws -> String {
    var object = try #require(try JSONSerialization.jsonObject(with: Data(try text(file).utf8)) as? [String: Any])
    change(&object)
    return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
  }

  /// `message` as SNS delivers it.
  static func json(_ message: SNSMessage) throws -> String {
    let fields: [String: String?] = [
      "Type": message.type, "MessageId": message.messageId, "TopicArn": message.topicArn, "Message": message.message,
      "Timestamp": message.timestamp, "SignatureVersion": message.signatureVersion, "Signature": message.signature,
      "SigningCertURL": message.signingCertURL, "SubscribeURL": message.subscribeURL, "Token": message.token,
    ]
    let present = fields.compactMapValues { $0 }
    return String(decoding: try JSONSerialization.data(withJSONObject: present), as: UTF8.self)
  }

  static let certURL = "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-test.pem"

  @Test(
    "each real message is valid with the real certificate, at its Timestamp", arguments: AmazonVectors.signedMessages)
  func realMessages(_ file: String) throws {
    let report = try Self.inspect(try Self.text(file), certificate: try Self.certificate())
    #expect(report.isValid, "\(report.problem?.message ?? "")")
    let summary = try #require(report.summary)
    #expect(Set(summary.keys) == ["type", "messageId", "topicArn", "signatureVersion", "rtn"])
    #expect(summary["type"] as? String == "Notification")
    #expect(summary["rtn"] is NSNull)
    let payload = try #require(report.payload as? [String: Any])
    #expect(summary["messageId"] as? String == payload["MessageId"] as? String)
    #expect(summary["topicArn"] as? String == payload["TopicArn"] as? String)
    #expect(summary["signatureVersion"] as? String == payload["SignatureVersion"] as? String)
  }

  @Test(
    "without --cert nothing is fetched: signature_not_checked, naming the URL", arguments: AmazonVectors.signedMessages)
  func withoutCertificate(_ file: String) throws {
    let report = try Self.inspect(try Self.text(file), certificate: nil)
    #expect(report.problem?.code == "signature_not_checked")
    #expect(report.problem?.message.contains("https://sns.us-east-2.amazonaws.com/") == true)
    #expect(report.summary != nil)
  }

  @Test("validity at --at: inside the certificate's validity valid, outside certificate_expired")
  func validityAt() throws {
    let text = try Self.text("sns-notification-sigv2.json")
    let certificate = try Self.certificate()
    #expect(try Self.inspect(text, certificate: certificate, at: 1_640_000_000_000).isValid)
    for at: Int64 in [1_700_000_000_000, 1_600_000_000_000] {
      #expect(try Self.inspect(text, certificate: certificate, at: at).problem?.code == "certificate_expired")
    }
  }

  @Test("tampered real messages are invalid with the reason; checks before the certificate hold without --cert too")
  func tampered() throws {
    let file = "sns-notification-sigv1.json"
    let cases: [(change: (inout [String: Any]) -> Void, code: String)] = [
      ({ $0["Message"] = "Hello world!" }, "bad_signature"),
      ({ $0["TopicArn"] = "arn:aws:sns:us-east-2:295079676684:another" }, "bad_signature"),
      (
        { $0["SigningCertURL"] = "https://sns.evil.example.com/SimpleNotificationService-x.pem" },
        "untrusted_certificate_url"
      ),
      (
        { $0["SigningCertURL"] = "http://sns.us-east-2.amazonaws.com/SimpleNotificationService-x.pem" },
        "untrusted_certificate_url"
      ),
      ({ $0["SignatureVersion"] = "3" }, "unsupported_signature_version"),
      ({ $0["Signature"] = nil }, "missing_field"),
      ({ $0["Type"] = "Gossip" }, "malformed"),
      ({ $0["Timestamp"] = "yesterday" }, "malformed"),
    ]
    let certificate = try Self.certificate()
    for (index, item) in cases.enumerated() {
      let text = try Self.tampered(file, item.change)
      #expect(try Self.inspect(text, certificate: certificate).problem?.code == item.code, "case \(index)")
      let expected = item.code == "bad_signature" ? "signature_not_checked" : item.code
      #expect(try Self.inspect(text, certificate: nil).problem?.code == expected, "case \(index) without --cert")
    }
  }

  @Test("the documentation's RTN example: the RTN decoded, the placeholder signature malformed")
  func documentedRTN() throws {
    let text = String(decoding: try AmazonVectors.data("docs/rtn-sns-subscription-purchased.json"), as: UTF8.self)
    let report = try Self.inspect(text, certificate: nil)
    #expect(report.problem?.code == "malformed")
    let rtn = try #require(report.summary?["rtn"] as? [String: Any])
    #expect(rtn["notificationType"] as? String == "SUBSCRIPTION_PURCHASED")
    #expect(rtn["appPackageName"] as? String == "com.example.amazonsdkapivalidator3")
    #expect(rtn["appUserId"] as? String == "io9oFdzmCSMuKk_pp9pYccoIHRfc6kSAAYaNo51xZrg=")
    #expect(rtn["receiptId"] as? String == "koxIn_LO2u7rc-_MF40hKz1vqSSJSlitfTNDeH_JAs8=:3:11")
    #expect((rtn["relatedReceipts"] as? [String: Any])?.isEmpty == true)
    #expect(rtn["timestamp"] as? Int64 == 1_600_701_569_824)
    #expect(rtn["betaProductTransaction"] as? Bool == false)
  }

  @Test("an RTN signed by a test certificate: valid, related receipts by key or as a list")
  func signedRTN() throws {
    let signer = try TestSNSSigner()
    let byKey =
      #"{"appPackageName":"com.example","appUserId":"u1","receiptId":"r2","notificationType":"SUBSCRIPTION_MODIFIED_IMMEDIATE","relatedReceipts":{"cancelledReceipt":"r1"},"timestamp":"1800000000000"}"#
    let report = try Self.inspect(
      try Self.json(try signer.sign(TestSNSSigner.notification(certURL: Self.certURL, rtn: byKey))),
      certificate: signer.certificate)
    #expect(report.isValid, "\(report.problem?.message ?? "")")
    let rtn = try #require(report.summary?["rtn"] as? [String: Any])
    #expect(rtn["relatedReceipts"] as? [String: String] == ["cancelledReceipt": "r1"])
    #expect(rtn["timestamp"] as? Int64 == 1_800_000_000_000)
    #expect(rtn["betaProductTransaction"] is NSNull)

    let list = #"{"receiptId":"r2","notificationType":"SUBSCRIPTION_RENEWED","relatedReceipts":["r0","r1"]}"#
    let listed = try Self.inspect(
      try Self.json(try signer.sign(TestSNSSigner.notification(certURL: Self.certURL, rtn: list))),
      certificate: signer.certificate)
    #expect((listed.summary?["rtn"] as? [String: Any])?["relatedReceipts"] as? [String] == ["r0", "r1"])

    // Another certificate's signature.
    let other = try TestSNSSigner()
    let forged = try Self.inspect(
      try Self.json(try other.sign(TestSNSSigner.notification(certURL: Self.certURL, rtn: byKey))),
      certificate: signer.certificate)
    #expect(forged.problem?.code == "bad_signature")
  }

  @Test("a SubscriptionConfirmation: valid, no RTN")
  func confirmation() throws {
    let signer = try TestSNSSigner()
    let message = try signer.sign(
      TestSNSSigner.confirmation(
        subscribeURL: "https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=2336412f37f",
        certURL: Self.certURL))
    let report = try Self.inspect(try Self.json(message), certificate: signer.certificate)
    #expect(report.isValid, "\(report.problem?.message ?? "")")
    #expect(report.summary?["type"] as? String == "SubscriptionConfirmation")
    #expect(report.summary?["rtn"] is NSNull)
  }

  @Test("--at decides validity: a message stamped before the certificate verifies at a moment inside it")
  func atOverridesTimestamp() throws {
    let signer = try TestSNSSigner()
    var message = TestSNSSigner.notification(certURL: Self.certURL, rtn: #"{"receiptId":"r1"}"#)
    message.timestamp = "2020-01-01T00:00:00.000Z"
    let text = try Self.json(try signer.sign(message))
    #expect(try Self.inspect(text, certificate: signer.certificate).problem?.code == "certificate_expired")
    #expect(try Self.inspect(text, certificate: signer.certificate, at: 1_800_000_000_000).isValid)

    var changed = try signer.sign(message)
    changed.message = #"{"receiptId":"r9"}"#
    let bad = try Self.inspect(try Self.json(changed), certificate: signer.certificate, at: 1_800_000_000_000)
    #expect(bad.problem?.code == "bad_signature")
  }

  @Test(
    "input that is no SNS message is unreadable",
    arguments: [
      "not json", "[1]", #"{"hello":"world"}"#, #"{"notificationType":"SUBSCRIPTION_PURCHASED","receiptId":"r"}"#,
    ])
  func unreadable(_ text: String) {
    #expect(throws: AmazonInspection.Unreadable.self) { try Self.inspect(text, certificate: nil) }
  }
}

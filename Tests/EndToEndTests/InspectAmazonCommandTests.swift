import Foundation
import Testing
import TollgateTesting

/// `tollgate inspect amazon-*` as a support engineer runs it, on the public vectors in
/// ../shared/vectors/amazon: the real binary, its JSON and its exit code.
@Suite("tollgate inspect amazon-*", .serialized)
struct InspectAmazonCommandTests {
  static let vectors = Vectors.directory + "/amazon/"
  static let sns = vectors + "sns-aws-php-sns-message-validator/"
  static let cert = sns + "sns-signing-cert-sns.amazonaws.com-2021-09-07.pem"
  static let signed = [
    "sns-notification-sigv1.json", "sns-notification-sigv1-with-subject.json", "sns-notification-sigv2.json",
    "sns-notification-sigv2-with-subject.json", "sns-lambda-sigv1-subject-null.json",
    "sns-lambda-sigv2-subject-null.json",
  ]

  static func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  static func summary(_ text: String) throws -> [String: Any] {
    try #require(try json(text)["summary"] as? [String: Any])
  }

  @Test("an RVS subscription receipt: entitled at --at, not after its term; an ENTITLED product never expires")
  func receipts() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let trial = Self.vectors + "aporat-rvs/rvs-subscription-all-fields-free-trial-autorenew.json"
    let during = try await ChildProcess.runDetached(["inspect", "amazon-receipt", trial, "--at", "1558511277035"])
    #expect(during.status == 0, "\(during.stderr)")
    let document = try Self.json(during.stdout)
    #expect(document["verdict"] as? String == "valid")
    #expect(document["error"] is NSNull)
    #expect((document["payload"] as? [String: Any])?["termSku"] as? String == "sub1-weekly_term")
    let facts = try Self.summary(during.stdout)
    #expect(facts["productType"] as? String == "SUBSCRIPTION")
    #expect(facts["entitled"] as? Bool == true)
    #expect(facts["expiresAtMs"] as? Int64 == 1_561_103_277_035)
    #expect(facts["environment"] as? String == "sandbox")
    #expect(facts["testTransaction"] as? Bool == true)

    let later = try await ChildProcess.runDetached(["inspect", "amazon-receipt", trial, "--at", "1600000000000"])
    #expect(later.status == 0)
    #expect(try Self.summary(later.stdout)["entitled"] as? Bool == false)

    // Default --at is now: a 2014 entitlement is still owned, with no expiry.
    let owned = try await ChildProcess.runDetached([
      "inspect", "amazon-receipt", Self.vectors + "go-iap/rvs-entitled.json",
    ])
    #expect(owned.status == 0, "\(owned.stderr)")
    let ownedFacts = try Self.summary(owned.stdout)
    #expect(ownedFacts["entitled"] as? Bool == true)
    #expect(ownedFacts["expiresAtMs"] is NSNull)
  }

  @Test("RVS error bodies and a Billing Compatibility resource are invalid (exit 1) with the reason")
  func invalidReceipts() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let cases = [
      ("aporat-rvs/rvs-error-503-body.json", "rvs_error"), ("go-iap/rvs-http504-timeout-body.json", "rvs_error"),
      ("docs/billing-compat-products-get-consumable.json", "not_an_rvs_receipt"),
    ]
    for (file, code) in cases {
      let run = try await ChildProcess.runDetached(["inspect", "amazon-receipt", Self.vectors + file])
      #expect(run.status == 1, "\(file): \(run.stderr)")
      let document = try Self.json(run.stdout)
      #expect(document["verdict"] as? String == "invalid")
      #expect(document["error"] as? String == code)
      #expect(document["summary"] is NSNull)
    }
  }

  @Test("the real AWS-signed SNS messages with the real certificate: exit 0")
  func realMessages() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    for file in Self.signed {
      let run = try await ChildProcess.runDetached([
        "inspect", "amazon-notification", Self.sns + file, "--cert", Self.cert,
      ])
      #expect(run.status == 0, "\(file): \(run.stdout) \(run.stderr)")
      let document = try Self.json(run.stdout)
      #expect(document["verdict"] as? String == "valid")
      let facts = try Self.summary(run.stdout)
      #expect(facts["type"] as? String == "Notification")
      #expect((facts["topicArn"] as? String)?.hasPrefix("arn:aws:sns:us-east-2:295079676684:") == true)
      #expect(facts["rtn"] is NSNull)
      #expect((document["payload"] as? [String: Any])?["Message"] as? String == "Hello world")
    }
    let inside = try await ChildProcess.runDetached([
      "inspect", "amazon-notification", Self.sns + "sns-notification-sigv2.json", "--cert", Self.cert, "--at",
      "1640000000000",
    ])
    #expect(inside.status == 0, "\(inside.stderr)")
  }

  @Test("without --cert: nothing fetched, signature_not_checked, exit 1")
  func withoutCertificate() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let run = try await ChildProcess.runDetached([
      "inspect", "amazon-notification", Self.sns + "sns-notification-sigv1.json",
    ])
    #expect(run.status == 1)
    let document = try Self.json(run.stdout)
    #expect(document["error"] as? String == "signature_not_checked")
    #expect((document["message"] as? String)?.contains("--cert") == true)
    #expect(try Self.summary(run.stdout)["messageId"] as? String == "792cda85-518f-5dd3-9163-81d851212f3a")

    let rtn = try await ChildProcess.runDetached([
      "inspect", "amazon-notification", Self.vectors + "docs/rtn-sns-subscription-purchased.json",
    ])
    #expect(rtn.status == 1)
    #expect(try Self.json(rtn.stdout)["error"] as? String == "malformed")
    let decoded = try #require(try Self.summary(rtn.stdout)["rtn"] as? [String: Any])
    #expect(decoded["notificationType"] as? String == "SUBSCRIPTION_PURCHASED")
  }

  @Test("tampered messages, a certificate URL elsewhere, a certificate out of date: exit 1 with the code")
  func tampered() async throws {
    guard Vectors.shouldRun else { return print(Vectors.skipMessage) }
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let original = try #require(
      try JSONSerialization.jsonObject(
        with: Data(try Vectors.bytes("amazon/sns-aws-php-sns-message-validator/sns-notification-sigv2.json")))
        as? [String: Any])
    let changes: [(field: String, value: String, code: String)] = [
      ("Message", "Hello world, tampered", "bad_signature"),
      ("SigningCertURL", "https://attacker.example/SimpleNotificationService-x.pem", "untrusted_certificate_url"),
      ("SignatureVersion", "3", "unsupported_signature_version"),
    ]
    for (index, change) in changes.enumerated() {
      var object = original
      object[change.field] = change.value
      let file = dir.file("tampered-\(index).json")
      try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: file))
      let run = try await ChildProcess.runDetached(["inspect", "amazon-notification", file, "--cert", Self.cert])
      #expect(run.status == 1, "\(change.field): \(run.stderr)")
      #expect(try Self.json(run.stdout)["error"] as? String == change.code, "\(change.field)")
    }
    let late = try await ChildProcess.runDetached([
      "inspect", "amazon-notification", Self.sns + "sns-notification-sigv2.json", "--cert", Self.cert, "--at",
      "1700000000000",
    ])
    #expect(late.status == 1)
    #expect(try Self.json(late.stdout)["error"] as? String == "certificate_expired")
  }

  @Test("unreadable files, input in no form the command reads, and bad usage exit 2")
  func exitTwo() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    func write(_ name: String, _ text: String) throws -> String {
      try text.write(toFile: dir.file(name), atomically: true, encoding: .utf8)
      return dir.file(name)
    }
    let missing = "/nonexistent/file"
    let receipt = try write("receipt.json", #"{"receiptId": "r", "productType": "ENTITLED"}"#)
    let message = try write("sns.json", #"{"Type": "Notification", "Message": "hi"}"#)
    let runs: [(arguments: [String], reason: String)] = [
      (["amazon-receipt", missing], "cannot read"),
      (["amazon-receipt", try write("a.txt", "not json")], "not a JSON object"),
      (["amazon-receipt", try write("empty.json", "  \n")], "is empty"),
      (["amazon-receipt", receipt, "--at", "soon"], "invalid for '--at"),
      (["amazon-receipt"], "Missing expected argument"),
      (["amazon-notification", missing], "cannot read"),
      (["amazon-notification", try write("b.txt", "[1, 2]")], "not a JSON object"),
      (["amazon-notification", try write("c.json", #"{"hello": "world"}"#)], "not an SNS message"),
      (
        ["amazon-notification", try write("d.json", #"{"notificationType": "SUBSCRIPTION_PURCHASED"}"#)],
        "without its SNS message"
      ),
      (["amazon-notification", message, "--cert", missing], "cannot read"),
      (["amazon-notification", message, "--cert", try write("e.pem", "not a certificate")], "not a PEM certificate"),
      (["amazon-notification", message, "--at", "later"], "invalid for '--at"),
      (["amazon-notification", message, "--certificate", "x"], "Unknown option"),
    ]
    for run in runs {
      let result = try await ChildProcess.runDetached(["inspect"] + run.arguments)
      #expect(result.status == 2, "\(run.arguments): \(result.stdout) \(result.stderr)")
      #expect(result.stdout.isEmpty, "\(run.arguments)")
      #expect(result.stderr.contains(run.reason), "\(run.arguments): \(result.stderr)")
    }
  }
}

import AmazonAppstore
import Testing
import TollgateCrypto
import TollgateTesting

/// The real AWS-signed SNS messages of aws-php-sns-message-validator, with the genuine SNS signing
/// certificate of that time (valid 2021-09-07 to 2022-08-17).
@Suite("SNS signatures (real AWS messages)", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct SNSVerifierTests {
  static let topics: Set<String> = [
    "arn:aws:sns:us-east-2:295079676684:publish-and-verify-892f85fe-4836-424d-8188-ab85bef0f362",
    "arn:aws:sns:us-east-2:295079676684:publish-and-verify-6e11fed2-fcdf-4c52-9dc4-36ef43f37f84",
    "arn:aws:sns:us-east-2:295079676684:publish-and-verify-62674b1d-4295-426b-88e7-5fb75652a04e",
    "arn:aws:sns:us-east-2:295079676684:publish-and-verify-530b26da-0687-4fe4-9f71-780bad3181e2",
  ]
  static let verifier = SNSMessageVerifier(allowedTopicArns: topics)

  static func certificate() throws -> Certificate { try Certificate(pem: try AmazonVectors.snsCertificatePEM()) }

  static func code(_ message: SNSMessage) throws -> SNSVerificationError.Code? {
    switch verifier.verify(message, certificate: try certificate()) {
    case .success: nil
    case .failure(let error): error.code
    }
  }

  @Test(
    "each message verifies against the real certificate at its own Timestamp", arguments: AmazonVectors.signedMessages)
  func verifies(_ file: String) throws {
    let message = try AmazonVectors.sns(file)
    let verified = try Self.verifier.verify(message, certificate: try Self.certificate()).get()
    #expect(verified.message.message == "Hello world")
    #expect(verified.signatureVersion.rawValue == message.signatureVersion)
  }

  @Test("the Lambda spelling: SigningCertUrl and UnsubscribeUrl read, null Subject left out of the signed text")
  func lambdaSpelling() throws {
    let message = try AmazonVectors.sns("sns-lambda-sigv2-subject-null.json")
    #expect(message.subject == nil)
    #expect(message.signingCertURL?.hasPrefix("https://sns.us-east-2.amazonaws.com/") == true)
    #expect(message.unsubscribeURL != nil)
    let text = String(decoding: try message.canonicalBytes().get(), as: UTF8.self)
    #expect(!text.contains("Subject"))
    #expect(text.hasPrefix("Message\nHello world\nMessageId\n17dea24b-55c2-540b-8362-f916557af765\nTimestamp\n"))
    #expect(text.hasSuffix("\nType\nNotification\n"))
  }

  @Test("a changed byte of Message, Subject or Timestamp breaks the signature", arguments: AmazonVectors.signedMessages)
  func tampered(_ file: String) throws {
    let original = try AmazonVectors.sns(file)
    var message = original
    message.message = "Hello world!"
    #expect(try Self.code(message) == .badSignature)
    message = original
    message.timestamp = original.timestamp.map { String($0.dropLast(2)) + "9Z" }
    #expect(message.timestamp != original.timestamp)
    #expect(try Self.code(message) == .badSignature)
    message = original
    message.subject = (original.subject ?? "") + "x"
    #expect(try Self.code(message) == .badSignature)
    if original.subject != nil {
      message.subject = nil
      #expect(try Self.code(message) == .badSignature)
    }
  }

  @Test("the certificate outside its validity: refused as expired", arguments: AmazonVectors.signedMessages)
  func outsideValidity(_ file: String) throws {
    var message = try AmazonVectors.sns(file)
    message.timestamp = "2022-09-01T00:00:00.000Z"
    #expect(try Self.code(message) == .certificateExpired)
    message.timestamp = "2021-09-01T00:00:00.000Z"
    #expect(try Self.code(message) == .certificateExpired)
  }

  @Test("a topic not configured is refused before any signature check")
  func wrongTopic() throws {
    let message = try AmazonVectors.sns("sns-notification-sigv1.json")
    let strict = SNSMessageVerifier(allowedTopicArns: ["arn:aws:sns:us-east-1:000000000000:tollgate-rtn"])
    guard case .failure(let error) = strict.verify(message, certificate: try Self.certificate()) else {
      Issue.record("a foreign topic was accepted")
      return
    }
    #expect(error.code == .topicNotAllowed)
    #expect(!error.isTransient)
  }

  @Test("SignatureVersion other than 1 and 2 is refused; 1 and 2 are not interchangeable")
  func versions() throws {
    var message = try AmazonVectors.sns("sns-notification-sigv1.json")
    for version in ["3", "0", "", "v1"] {
      message.signatureVersion = version
      #expect(try Self.code(message) == .unsupportedSignatureVersion)
    }
    message.signatureVersion = "2"
    #expect(try Self.code(message) == .badSignature)
  }

  @Test("an untrusted SigningCertURL is refused even with the right certificate in hand")
  func untrustedURL() throws {
    var message = try AmazonVectors.sns("sns-notification-sigv2.json")
    message.signingCertURL = "https://sns.us-east-2.amazonaws.com.evil.com/SimpleNotificationService-x.pem"
    #expect(try Self.code(message) == .untrustedCertificateURL)
  }

  @Test("missing fields and malformed values are named")
  func missing() throws {
    let original = try AmazonVectors.sns("sns-notification-sigv2.json")
    var message = original
    message.messageId = nil
    #expect(try Self.code(message) == .missingField)
    message = original
    message.signature = nil
    #expect(try Self.code(message) == .missingField)
    message = original
    message.signature = "not base64!"
    #expect(try Self.code(message) == .malformed)
    message = original
    message.timestamp = "yesterday"
    #expect(try Self.code(message) == .malformed)
    message = original
    message.type = "Gossip"
    #expect(try Self.code(message) == .malformed)
  }

  @Test("Timestamp parses to ms since the epoch")
  func timestamp() throws {
    #expect(try AmazonVectors.sns("sns-notification-sigv1.json").timestampMs == 1_659_043_438_317)
    #expect(SNSMessage(timestamp: "2022-07-28T21:23:58Z").timestampMs == 1_659_043_438_000)
    #expect(SNSMessage(timestamp: "2022-07-28T21:23:58.3Z").timestampMs == 1_659_043_438_300)
    #expect(SNSMessage(timestamp: "2022-07-28 21:23:58Z").timestampMs == nil)
  }
}

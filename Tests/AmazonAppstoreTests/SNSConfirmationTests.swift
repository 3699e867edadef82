import AmazonAppstore
import Foundation
import Testing

@Suite("SNS subscription confirmation")
struct SNSConfirmationTests {
  static let body = """
    {"Type":"SubscriptionConfirmation","MessageId":"165545c9-2a5c-472c-8df2-7ff2be2b3b1b",
     "Token":"2336412f37f","TopicArn":"arn:aws:sns:us-west-2:123456789012:MyTopic",
     "Message":"You have chosen to subscribe to the topic.",
     "SubscribeURL":"https://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-west-2:123456789012:MyTopic&Token=2336412f37f",
     "Timestamp":"2012-04-26T20:45:04.751Z","SignatureVersion":"1","Signature":"AAAA",
     "SigningCertURL":"https://sns.us-west-2.amazonaws.com/SimpleNotificationService-f3ecfb7224c7233fe7bb5f59f96de52f.pem"}
    """

  @Test("the canonical text of a SubscriptionConfirmation: SubscribeURL and Token, in AWS's order")
  func canonical() throws {
    let message = try JSONDecoder().decode(SNSMessage.self, from: Data(Self.body.utf8))
    #expect(message.typedType == .subscriptionConfirmation)
    let text = String(decoding: try message.canonicalBytes().get(), as: UTF8.self)
    let names = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
      .filter { $0.offset % 2 == 0 }.map(\.element).filter { !$0.isEmpty }
    #expect(names == ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"])
  }
}

extension SNSConfirmationTests {
  static let certURL = "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0123456789abcdef.pem"

  static func confirm(_ subscribeURL: String) throws -> Result<SNSSubscriptionConfirmation, SNSVerificationError> {
    let signer = try TestSNSSigner()
    let message = try signer.sign(TestSNSSigner.confirmation(subscribeURL: subscribeURL, certURL: certURL))
    let verifier = SNSMessageVerifier(allowedTopicArns: [TestSNSSigner.topic])
    let verified = try verifier.verify(message, certificate: signer.certificate).get()
    return SNSSubscriptionConfirmation.of(verified, policy: verifier.policy)
  }

  @Test("a verified confirmation names its SubscribeURL when it is an SNS URL")
  func confirmed() throws {
    let url = "https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=x&Token=2336412f37f"
    let confirmation = try Self.confirm(url).get()
    #expect(confirmation.subscribeURL == url)
    #expect(confirmation.topicArn == TestSNSSigner.topic)
    #expect(confirmation.token == "2336412f37f")
  }

  @Test(
    "a SubscribeURL elsewhere is refused, signed or not",
    arguments: [
      "http://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription",
      "https://sns.us-east-1.amazonaws.com.evil.com/?Action=ConfirmSubscription",
      "https://sns.us-east-1.amazonaws.com@evil.com/?Action=ConfirmSubscription",
      "https://evil.com/sns.us-east-1.amazonaws.com/",
    ])
  func refused(_ url: String) throws {
    guard case .failure(let error) = try Self.confirm(url) else {
      Issue.record("\(url) was accepted")
      return
    }
    #expect(error.code == .untrustedCertificateURL)
  }

  @Test("a verified Notification is no confirmation, and carries its RTN")
  func notificationIsNoConfirmation() throws {
    let signer = try TestSNSSigner()
    let rtn = #"{"appUserId":"u1","receiptId":"r1","notificationType":"SUBSCRIPTION_RENEWED","timestamp":1}"#
    let message = try signer.sign(TestSNSSigner.notification(certURL: Self.certURL, rtn: rtn))
    let verified = try SNSMessageVerifier(allowedTopicArns: [TestSNSSigner.topic])
      .verify(message, certificate: signer.certificate).get()
    #expect(verified.signatureVersion == .sha1WithRSA)
    #expect(verified.amazonNotification?.typedNotificationType == .subscriptionRenewed)
    guard case .failure(let error) = SNSSubscriptionConfirmation.of(verified, policy: SNSCertificatePolicy()) else {
      Issue.record("a Notification gave a confirmation")
      return
    }
    #expect(error.code == .malformed)
  }
}

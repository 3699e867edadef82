import AmazonAppstore
import TollgateCrypto

/// Signs SNS messages as SNS does, with a self-signed RSA certificate of our own (valid around
/// `nowSeconds`), for the paths the real vectors cannot reach (confirmations, fetched certificates).
struct TestSNSSigner {
  let key: RSAPrivateKey
  let certificate: Certificate

  init(nowSeconds: Int64 = 1_800_000_000) throws {
    key = try RSAPrivateKey.generate()
    certificate = try CertificateIssuer.issue(
      subjectKey: key, commonName: "sns.amazonaws.com", serial: 7,
      validity: .around(nowSeconds, years: 1))
  }

  /// `message` with `Signature` set over its canonical text (version from `SignatureVersion`).
  func sign(_ message: SNSMessage) throws -> SNSMessage {
    var signed = message
    let canonical = try message.canonicalBytes().get()
    let signature =
      message.signatureVersion == "1" ? try RSASHA1.sign(canonical, with: key) : try RS256.sign(canonical, with: key)
    signed.signature = Base64.encode(signature)
    return signed
  }

  static let topic = "arn:aws:sns:us-east-1:123456789012:tollgate-rtn"

  /// A SubscriptionConfirmation for `topic`, at 2027-01-15.
  static func confirmation(subscribeURL: String, certURL: String) -> SNSMessage {
    SNSMessage(
      type: "SubscriptionConfirmation", messageId: "165545c9-2a5c-472c-8df2-7ff2be2b3b1b", topicArn: topic,
      message: "You have chosen to subscribe to the topic.", timestamp: "2027-01-15T08:00:00.000Z",
      signatureVersion: "2", signingCertURL: certURL, subscribeURL: subscribeURL, token: "2336412f37f")
  }

  /// An RTN Notification for `topic`, at 2027-01-15.
  static func notification(certURL: String, rtn: String) -> SNSMessage {
    SNSMessage(
      type: "Notification", messageId: "b1c4d9bb-0fd9-54b2-8f74-8e59c91e396a", topicArn: topic, message: rtn,
      timestamp: "2027-01-15T08:00:00.000Z", signatureVersion: "1", signingCertURL: certURL)
  }
}

import Foundation
import TollgateCrypto

extension AmazonInspection {
  /// Inspects an SNS message as delivered to an HTTP(S) endpoint (a Real-Time Notification in a
  /// `Notification`, or a `SubscriptionConfirmation`).
  ///
  /// Valid only when its signature verified: with `certificate` standing in for the one at
  /// `SigningCertURL` (whose URL must still be an SNS URL), the certificate valid at `atMs` (`nil`:
  /// the message's `Timestamp`), any topic accepted. Invalid with the `SNSVerificationError` code
  /// when a check fails (`missing_field`, `unsupported_signature_version`,
  /// `untrusted_certificate_url`, `certificate_expired`, `bad_signature`, `malformed`); without a
  /// certificate, nothing is fetched and a message that passes every other check is
  /// `signature_not_checked`. The summary is there for every SNS message. Throws `Unreadable`
  /// unless `text` is a JSON object with an SNS field (a bare RTN says so).
  public static func inspectNotification(
    _ text: String, certificate: Certificate?, atMs: Int64?,
    policy: SNSCertificatePolicy = SNSCertificatePolicy()
  ) throws(Unreadable) -> Report {
    guard let object = jsonObject(Array(text.utf8)) else { throw Unreadable("not a JSON object") }
    guard object.keys.contains(where: snsKeys.contains) else {
      if object.keys.contains(where: { $0.lowercased() == "notificationtype" }) {
        throw Unreadable(
          "a Real-Time Notification without its SNS message: give the SNS message as delivered (Type, Message, Signature, …)"
        )
      }
      throw Unreadable("a JSON object that is not an SNS message (no Type, MessageId, Signature or TopicArn)")
    }
    var report = Report(payload: object)
    let message: SNSMessage
    do {
      message = try JSONDecoder().decode(SNSMessage.self, from: Data(text.utf8))
    } catch {
      throw Unreadable("not an SNS message: \(error)")
    }
    report.summary = AmazonNotificationSummary(message: message).jsonObject
    let verifier = SNSMessageVerifier(allowedTopicArns: nil, policy: policy)
    switch checkSignature(of: message, certificate: certificate, atMs: atMs, verifier: verifier) {
    case .verified:
      break
    case .refused(let error):
      report.problem = Problem(code: error.code.description, message: error.message)
    case .signatureNotChecked(let url):
      report.problem = Problem(
        code: "signature_not_checked",
        message:
          "the signature was not checked: inspect fetches nothing; save the certificate at \(url) and give it with --cert"
      )
    }
    return report
  }

  /// SNS's own fields: one of them makes a JSON object an SNS message.
  static let snsKeys: Set<String> = ["Type", "MessageId", "Signature", "TopicArn", "SignatureVersion"]
}

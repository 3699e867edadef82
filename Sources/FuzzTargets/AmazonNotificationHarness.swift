import AmazonAppstore
import Foundation
import TollgateCrypto

/// Input: the body of an SNS delivery to `/notifications/amazon`. Decoded as the gateway decodes
/// it, its canonical text built and its signature checked with the fuzz SNS certificate standing
/// for the one at SigningCertURL (nothing is fetched), the RTN in `Message` read; then as
/// `tollgate inspect amazon-notification` reads a file.
enum AmazonNotificationHarness {
  static let certificate: Certificate = {
    guard let certificate = try? Certificate(pem: FuzzCertificates.snsSigning) else {
      preconditionFailure("the fuzz SNS certificate does not load")
    }
    return certificate
  }()

  static let verifier = SNSMessageVerifier(allowedTopicArns: nil)

  static func run(_ bytes: [UInt8]) {
    if let message = try? JSONDecoder().decode(SNSMessage.self, from: Data(bytes)) {
      _ = message.typedType
      _ = message.timestampMs
      _ = message.canonicalBytes()
      if let url = message.signingCertURL { _ = verifier.policy.allowsCertificateURL(url) }
      if let url = message.subscribeURL { _ = verifier.policy.allowsSubscribeURL(url) }
      if case .success(let verified) = verifier.verify(message, certificate: certificate) {
        _ = verified.amazonNotification
        _ = SNSSubscriptionConfirmation.of(verified, policy: verifier.policy)
      }
      if let text = message.message, let notification = AmazonNotification(message: text) {
        _ = notification.typedNotificationType
        _ = notification.relatedReceiptIds
      }
    }
    _ = try? AmazonInspection.inspectNotification(
      String(decoding: bytes, as: UTF8.self), certificate: certificate, atMs: nil)
  }
}

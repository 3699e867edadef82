import AmazonAppstore
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import TollgateWorker

/// Decides, before anything is stored, what becomes of an SNS delivery to `/notifications/amazon`:
/// its signature is verified first (SignatureVersion 1 or 2, a certificate fetched only from an
/// SNS host or a configured prefix, valid at the message's time, an allowed topic).
///
/// - Unsigned, forged, another topic's: 403 (400 when it is not an SNS message at all). The
///   certificate cannot be fetched now: 503, so SNS delivers again.
/// - A verified SubscriptionConfirmation: confirmed by visiting its SubscribeURL (same host rule),
///   answered 200, not stored. An UnsubscribeConfirmation: 200, not stored.
/// - A verified Notification: stored, deduplicated by SNS's `MessageId`.
struct AmazonSNSAdmission: Sendable {
  let verifier: SNSMessageVerifier
  let certificates: SNSCertificateCache
  let httpClient: HTTPClient
  let logger: Logger

  init(apps: [AmazonAppSettings], httpClient: HTTPClient, logger: Logger) {
    let policy = SNSCertificatePolicy(trustedURLPrefixes: Array(Set(apps.flatMap(\.trustedCertificateURLPrefixes))))
    verifier = SNSMessageVerifier(allowedTopicArns: Set(apps.flatMap(\.allowedTopicArns)), policy: policy)
    certificates = SNSCertificateCache(config: .init(policy: policy), httpClient: httpClient, logger: logger)
    self.httpClient = httpClient
    self.logger = logger
  }

  func admit(_ request: NotificationRequest) async -> NotificationAdmission {
    let message: SNSMessage
    do {
      message = try JSONDecoder().decode(SNSMessage.self, from: Data(request.body))
    } catch {
      return .refuse(status: 400, reason: "not an SNS message")
    }
    let verified: SNSVerifiedMessage
    switch await verifier.verify(message, certificates: certificates) {
    case .success(let value): verified = value
    case .failure(let error):
      return .refuse(
        status: error.isTransient ? 503 : 403, reason: "SNS message refused: \(error.code): \(error.message)")
    }
    switch message.typedType {
    case .notification?:
      guard let messageId = message.messageId, !messageId.isEmpty else {
        return .refuse(status: 400, reason: "an SNS Notification without a MessageId")
      }
      return .store(dedupeKey: messageId)
    case .subscriptionConfirmation?:
      return await confirm(verified)
    case .unsubscribeConfirmation?:
      return .acknowledge(reason: "unsubscribed from \(message.topicArn ?? "a topic")")
    case nil:
      return .refuse(status: 400, reason: "an SNS message of unknown Type \(message.type ?? "(none)")")
    }
  }

  /// Visits the SubscribeURL of a verified SubscriptionConfirmation (an SNS URL only).
  private func confirm(_ verified: SNSVerifiedMessage) async -> NotificationAdmission {
    let confirmation: SNSSubscriptionConfirmation
    switch SNSSubscriptionConfirmation.of(verified, policy: verifier.policy) {
    case .success(let value): confirmation = value
    case .failure(let error): return .refuse(status: 403, reason: "subscription confirmation refused: \(error.message)")
    }
    do {
      var request = HTTPClientRequest(url: confirmation.subscribeURL)
      request.method = .GET
      let response = try await httpClient.execute(request, timeout: .seconds(10))
      _ = try? await response.body.collect(upTo: 1 << 16)
      guard (200..<300).contains(response.status.code) else {
        return .refuse(status: 503, reason: "confirming the subscription answered \(response.status.code)")
      }
    } catch {
      return .refuse(status: 503, reason: "confirming the subscription failed: \(error)")
    }
    logger.notice("SNS subscription confirmed", metadata: ["sns.topic_arn": "\(confirmation.topicArn)"])
    return .acknowledge(reason: "subscription to \(confirmation.topicArn) confirmed")
  }
}

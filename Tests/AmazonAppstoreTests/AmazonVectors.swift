import AmazonAppstore
import Foundation
import Logging
import Synchronization
import TollgateCore
import TollgateTesting

/// Reads `../shared/vectors/amazon/…` in place (never copied into the repository).
enum AmazonVectors {
  static func data(_ relativePath: String) throws -> Data {
    Data(try Vectors.bytes("amazon/\(relativePath)"))
  }

  static func receipt(_ relativePath: String) throws -> RVSReceipt {
    try JSONDecoder().decode(RVSReceipt.self, from: try data(relativePath))
  }

  static func sns(_ relativePath: String) throws -> SNSMessage {
    try JSONDecoder().decode(SNSMessage.self, from: try data("sns-aws-php-sns-message-validator/\(relativePath)"))
  }

  static func snsCertificatePEM() throws -> String {
    try Vectors.string("amazon/sns-aws-php-sns-message-validator/sns-signing-cert-sns.amazonaws.com-2021-09-07.pem")
  }

  /// Every RVS receipt body among the vectors.
  static let receiptFiles = [
    "aporat-rvs/rvs-consumable-production-2017.json",
    "aporat-rvs/rvs-consumable-sandbox.json",
    "aporat-rvs/rvs-subscription-all-fields-free-trial-autorenew.json",
    "aporat-rvs/rvs-subscription-cancelled-by-customer.json",
    "aporat-rvs/rvs-subscription-intro-promotion-queued.json",
    "docs/rvs-sandbox-subscription-free-trial.json",
    "docs/billing-compat-products-get-consumable.json",
    "go-iap/rvs-entitled.json",
    "go-iap/rvs-subscription-free-trial-mixedcase.json",
  ]

  /// The real AWS-signed SNS messages.
  static let signedMessages = [
    "sns-notification-sigv1.json",
    "sns-notification-sigv1-with-subject.json",
    "sns-notification-sigv2.json",
    "sns-notification-sigv2-with-subject.json",
    "sns-lambda-sigv1-subject-null.json",
    "sns-lambda-sigv2-subject-null.json",
  ]
}

/// A day in ms.
let dayMs: Int64 = 86_400_000

/// Core's state of `mapping` at `nowMs`.
func evaluate(_ mapping: AmazonMapping, at nowMs: Int64) -> SubscriptionEvaluation {
  SubscriptionLifecycle.evaluate(mapping.history, at: nowMs)
}

/// Everything logged, rendered as text, to check what logs hold.
final class RecordingLog: Sendable {
  private let lines = Mutex<[String]>([])

  var text: String { lines.withLock { $0.joined(separator: "\n") } }

  func logger(_ label: String) -> Logger {
    var logger = Logger(label: label) { _ in Handler(log: self) }
    logger.logLevel = .trace
    return logger
  }

  fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

  private struct Handler: LogHandler {
    let log: RecordingLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let all = metadata.merging(event.metadata ?? [:]) { $1 }
      log.append("\(event.level) \(event.message) \(all)")
    }
  }
}

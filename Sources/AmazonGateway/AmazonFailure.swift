import AmazonAppstore
import TollgateWorker

extension RVSError {
  /// What the worker does about an RVS failure, as Amazon documents the status codes: trouble at
  /// Amazon is retried and changes nothing; the operator's shared secret is theirs to fix (the
  /// buyer's item waits); a receipt Amazon does not know (400) is retried like Apple's and
  /// Google's 404 while the evidence is young (RVS answers so for a while right after a purchase,
  /// and during an incident), and never ends a chain verified before; a receipt past retention
  /// (410) is gone (its scheduled checks stop); another user's receipt is refused.
  var classified: StoreFailure {
    switch code {
    case .throttled, .serverError, .transport, .invalidResponse:
      StoreFailure(.transient, "Amazon RVS could not answer: \(self)", retryAfterMs: retryAfterMs, cause: self)
    case .invalidSharedSecret, .unexpectedStatus:
      StoreFailure(
        .needsOperator, "Amazon RVS refused this app's shared secret or answered unexpectedly: \(self)", cause: self)
    case .invalidUserId:
      StoreFailure(
        .final,
        "the receipt does not belong to this Amazon user (RVS 497): possibly a receipt submitted by someone else",
        cause: self)
    case .invalidReceipt:
      StoreFailure(.notFound, "Amazon RVS does not know the receipt (RVS 400): \(self)", cause: self)
    case .receiptNoLongerValid:
      StoreFailure(.gone, "the store no longer has this purchase (RVS 410): it is past retention", cause: self)
    default:
      StoreFailure(.final, "Amazon RVS refused the receipt: \(self)", cause: self)
    }
  }
}

import AmazonAppstore
import TollgateWorker

extension RVSError {
  /// What the worker does about an RVS failure, as Amazon documents the status codes: trouble at
  /// Amazon is retried and changes nothing; the operator's shared secret is theirs to fix (the
  /// buyer's item waits); a receipt Amazon calls invalid, over, or another user's is refused.
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
    case .receiptNoLongerValid:
      StoreFailure(.final, "the receipt is no longer valid (RVS 410): the purchase is over", cause: self)
    default:
      StoreFailure(.final, "Amazon RVS refused the receipt: \(self)", cause: self)
    }
  }
}

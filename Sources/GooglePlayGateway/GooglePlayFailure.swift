import GooglePlay
import TollgateWorker

extension AndroidPublisherError {
  /// The one place Google Play trouble is classified, as Google documents its errors:
  /// - 429, 5xx, no answer, an answer that is not what the API documents: transient (retried; the
  ///   verified state stays);
  /// - 401, 403 and no access token (the service account, its key, its Play Console permissions):
  ///   the operator's to fix; the buyer's item stays pending;
  /// - 404: not found, retried while the evidence is young (a chain verified before keeps its
  ///   state);
  /// - 410 (`subscriptionPurchaseNoLongerAvailable`: the purchase ended more than 60 days ago):
  ///   gone, Google will never answer for it again (its scheduled checks stop);
  /// - 400 (a token of another app: possibly a replay): final.
  public var classified: StoreFailure {
    let kind: StoreFailure.Kind
    switch code {
    case .rateLimited, .serverError, .transport, .invalidResponse: kind = .transient
    case .unauthorized, .forbidden, .credentials: kind = .needsOperator
    case .notFound: kind = .notFound
    case .gone: kind = .gone
    case .badRequest: kind = .final
    default: kind = isRetryable ? .transient : .final
    }
    let message =
      kind == .gone
      ? "the store no longer has this purchase (Google 410: it ended more than 60 days ago): \(description)"
      : isPossibleReplay ? "\(description): possibly a replayed purchase token" : description
    return StoreFailure(kind, message, retryAfterMs: retryAfterMs, cause: self)
  }
}

import AppStore
import TollgateWorker

/// Why an App Store item could not be applied now, as the gateway's own code sees it; the worker
/// only ever sees it classified.
enum AppleFailure: Error, Sendable {
  /// The store said no, or the evidence is bad.
  case rejected(String)
  /// Our side is wrong and Apple said so outside the API (verifyReceipt's 21004: the shared secret
  /// is not this app's).
  case misconfigured(String)
  /// The App Store could not be asked, or its answer could not be believed.
  case store(AppStoreAPIError)
}

extension AppleFailure {
  /// The one place App Store trouble is classified:
  /// - 429, 5xx, no answer, and an answer that is not what the API documents or fails
  ///   verification: transient (retried; the verified state stays);
  /// - 401 (Apple refused our token) and a key that cannot sign: the operator's to fix; the
  ///   buyer's item stays pending;
  /// - 404 (Apple's 4040010 and kin, which Apple documents as retryable right after a purchase):
  ///   not found, retried while the evidence is young;
  /// - another 4xx, and evidence Apple's rules refuse: final.
  var classified: StoreFailure {
    switch self {
    case .rejected(let reason):
      return .final(reason)
    case .misconfigured(let reason):
      return StoreFailure(.needsOperator, reason)
    case .store(let error):
      let kind: StoreFailure.Kind
      switch error.code {
      case .rateLimited, .serverError, .transport, .invalidResponse: kind = .transient
      case .unauthorized, .credentials: kind = .needsOperator
      case .notFound: kind = .notFound
      case .badRequest: kind = .final
      default: kind = error.isRetryable ? .transient : .final
      }
      return StoreFailure(kind, error.description, retryAfterMs: error.retryAfterMs, cause: error)
    }
  }
}

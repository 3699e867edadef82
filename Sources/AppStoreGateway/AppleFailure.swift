import AppStore
import TollgateWorker

/// Why an App Store item could not be applied now, as the gateway's own code sees it; the worker
/// only ever sees it classified.
enum AppleFailure: Error, Sendable {
  /// The store said no, or the evidence is bad.
  case rejected(String)
  /// The App Store could not be asked, or its answer could not be believed.
  case store(AppStoreAPIError)
}

extension AppleFailure {
  /// The one place App Store trouble is classified. It keeps today's behaviour exactly; issue #14
  /// revisits the marked cases (credentials Apple refuses are our problem, not the buyer's; a 404
  /// on one environment is not yet a "no").
  var classified: StoreFailure {
    switch self {
    case .rejected(let reason):
      return .final(reason)
    case .store(let error):
      let kind: StoreFailure.Kind
      if error.code == .rateLimited || error.code == .serverError || error.code == .transport {
        kind = .transient
      } else if error.code == .invalidResponse {
        kind = .transient  // an answer that failed verification is not believed, and not a "no"
      } else if error.code == .unauthorized {
        kind = .transient  // #14: .needsOperator (our key or token was refused)
      } else if error.code == .credentials {
        kind = .final  // #14: .needsOperator (our key cannot sign)
      } else if error.code == .notFound || error.code == .badRequest {
        kind = .final  // #14: a 404 in one environment is not a final answer by itself
      } else {
        kind = error.isRetryable ? .transient : .final
      }
      return StoreFailure(kind, error.description, retryAfterMs: error.retryAfterMs, cause: error)
    }
  }
}

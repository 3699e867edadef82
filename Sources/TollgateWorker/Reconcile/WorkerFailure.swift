import AppStore

/// Why an item could not be applied now.
enum WorkerFailure: Error, Sendable {
  /// The store said no, or the evidence is bad: final, with a reason a caller can act on.
  case rejected(String)
  /// The store could not be asked (5xx, 429, timeout, unverifiable answer): try again later;
  /// the verified state stays as it is.
  case store(AppStoreAPIError)
}

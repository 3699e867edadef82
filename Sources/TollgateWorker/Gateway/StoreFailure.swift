/// Why a store could not give an answer the worker may act on: one classification for every
/// store, decided by its gateway.
///
/// - `transient`: the store could not be asked or answered unbelievably (5xx, 429, a timeout, a
///   payload that fails verification): retry with backoff; the verified state stays as it is.
/// - `needsOperator`: our side is wrong (credentials, configuration): alert, keep the item
///   pending and retry with backoff; never the buyer's fault.
/// - `notFound`: the store does not know the purchase. Stores answer so for a while right after a
///   purchase (Apple documents its 404 as retryable then), so the worker retries it like
///   `transient` while the evidence is younger than `WorkerSettings.notFoundRetryWindowMs`, and
///   treats it as `final` after that.
/// - `final`: the store says no (invalid evidence, another app's receipt, a purchase long unknown).
///   Only this (and a `notFound` past its window) rejects a buyer's submission.
public struct StoreFailure: Error, Sendable, CustomStringConvertible {
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    private enum Base: String, Hashable, Sendable {
      case transient
      case needsOperator = "needs_operator"
      case notFound = "not_found"
      case final
    }

    private let base: Base

    private init(_ base: Base) {
      self.base = base
    }

    public static let transient = Kind(.transient)
    public static let needsOperator = Kind(.needsOperator)
    public static let notFound = Kind(.notFound)
    public static let final = Kind(.final)

    public var description: String { base.rawValue }
  }

  public var kind: Kind
  /// What happened, for logs and the inbox item's outcome; never a token or a payload.
  public var message: String
  /// When the store asked to be called again (Retry-After).
  public var retryAfterMs: Int64?
  public var cause: (any Error)?

  public init(_ kind: Kind, _ message: String, retryAfterMs: Int64? = nil, cause: (any Error)? = nil) {
    self.kind = kind
    self.message = message
    self.retryAfterMs = retryAfterMs
    self.cause = cause
  }

  public static func final(_ message: String) -> StoreFailure { StoreFailure(.final, message) }

  public var description: String { message }
}

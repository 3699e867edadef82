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
///   treats it as `final` after that. A chain the worker verified before is never ended by it
///   (`Rescheduler`, `ItemProcessor`): it keeps its state and counts toward the store's outage.
/// - `gone`: the store no longer keeps the purchase (Google's 410
///   `subscriptionPurchaseNoLongerAvailable`, 60 days after it ended; RVS's 410 once a receipt is
///   past retention). It will never answer for it again, so a scheduled check stops for good: the
///   chain keeps its last verified state, is not scheduled again, and says why
///   (`VerificationEvidence.checksStopped`). A submission or notification for it is refused like
///   `final` (nothing the store says can grant it).
/// - `final`: the store says no (invalid evidence, another app's receipt, a purchase long unknown).
///   Only this, `gone`, and a `notFound` past its window reject a buyer's submission; a scheduled
///   check that fails so is postponed with backoff (it may be our mistake), never acted on.
public struct StoreFailure: Error, Sendable, CustomStringConvertible {
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    private enum Base: String, Hashable, Sendable {
      case transient
      case needsOperator = "needs_operator"
      case notFound = "not_found"
      case gone
      case final
    }

    private let base: Base

    private init(_ base: Base) {
      self.base = base
    }

    public static let transient = Kind(.transient)
    public static let needsOperator = Kind(.needsOperator)
    public static let notFound = Kind(.notFound)
    public static let gone = Kind(.gone)
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

  /// Whether the failure is the store's trouble or ours, not the buyer's: it starts or continues
  /// the store's outage (`StoreHealth`), and never changes anyone's state.
  public var countsAsOutage: Bool { kind == .transient || kind == .needsOperator }

  /// Whether the store refuses the purchase for good (a submission or notification is rejected).
  public var refuses: Bool { kind == .final || kind == .gone }
}

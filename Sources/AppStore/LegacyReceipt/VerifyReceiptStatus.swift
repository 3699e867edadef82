/// The `status` of a verifyReceipt answer (developer.apple.com/documentation/appstorereceipts/status).
public enum VerifyReceiptStatus: Sendable, Hashable {
  /// 0: the receipt is valid.
  case valid
  /// 21000: the request was not an HTTP POST (or Apple could not read it).
  case badRequestMethod
  /// 21001: no longer sent by Apple.
  case obsolete
  /// 21002: `receipt-data` was malformed, or the service had a temporary issue.
  case malformedReceiptData
  /// 21003: the receipt could not be authenticated.
  case receiptNotAuthenticated
  /// 21004: the shared secret does not match the account's.
  case sharedSecretMismatch
  /// 21005: the receipt server was temporarily unable to answer. Retryable.
  case receiptServerUnavailable
  /// 21006: valid receipt, but the subscription has expired (iOS 6-style receipts).
  case subscriptionExpired
  /// 21007: a sandbox receipt was sent to production; send it to sandbox.
  case sandboxReceiptSentToProduction
  /// 21008: a production receipt was sent to sandbox; send it to production.
  case productionReceiptSentToSandbox
  /// 21009: internal data access error. Retryable.
  case internalDataAccessError
  /// 21010: the user account cannot be found or was deleted.
  case accountNotFound
  /// 21100–21199: internal data access errors. Retryable.
  case internalError(Int)
  case unknown(Int)

  public init(rawValue: Int) {
    switch rawValue {
    case 0: self = .valid
    case 21000: self = .badRequestMethod
    case 21001: self = .obsolete
    case 21002: self = .malformedReceiptData
    case 21003: self = .receiptNotAuthenticated
    case 21004: self = .sharedSecretMismatch
    case 21005: self = .receiptServerUnavailable
    case 21006: self = .subscriptionExpired
    case 21007: self = .sandboxReceiptSentToProduction
    case 21008: self = .productionReceiptSentToSandbox
    case 21009: self = .internalDataAccessError
    case 21010: self = .accountNotFound
    case 21100...21199: self = .internalError(rawValue)
    default: self = .unknown(rawValue)
    }
  }

  /// Whether sending the same request later may succeed.
  public var isRetryable: Bool {
    switch self {
    case .receiptServerUnavailable, .internalDataAccessError, .internalError: return true
    default: return false
    }
  }

  /// Whether the body carries receipt data (0, and 21006 for iOS 6 receipts).
  public var hasReceipt: Bool { self == .valid || self == .subscriptionExpired }
}

/// A purchase an app backend submitted for verification (SubmitPurchase), as stored in the inbox.
public struct PurchaseSubmission: Sendable, Hashable, Codable {
  public var userId: String
  public var store: Store
  /// App Store: transaction id, signed transaction (JWS) or base64 app receipt.
  public var receipt: String?
  /// Google Play.
  public var purchaseToken: String?
  /// Amazon Appstore.
  public var receiptId: String?
  public var amazonUserId: String?
  public var productId: String?
  public var appId: String?
  /// Google Play: the Play Billing library's `INAPP_PURCHASE_DATA`, byte for byte as the app got
  /// it, and its base64 RSA-SHA1 signature (a first check; state comes from Google's API).
  public var googlePurchaseData: String?
  public var googleSignature: String?
  /// The authenticated RPC caller that submitted it (nil on a server without callers configured).
  /// GetSubmission shows a submission to this caller only (and to admins).
  public var caller: String?
  /// The submitting caller had the `admin` scope, or the server runs without callers (every
  /// connection may do everything, as on a loopback-only server). Only then may a bare App Store
  /// transaction id, which proves nothing about who bought it, claim an unbound purchase (issue 17).
  /// Nil in submissions stored before callers existed: treated as trusted, as they were then.
  public var callerIsTrusted: Bool?
  /// The request that submitted it (`RequestID`), stored with its inbox item (column
  /// `request_id`): the worker logs it for the item and sends it with the webhooks it causes.
  /// Nil in submissions stored before request ids existed.
  public var requestId: String?

  public init(
    userId: String, store: Store, receipt: String? = nil, purchaseToken: String? = nil,
    receiptId: String? = nil, amazonUserId: String? = nil, productId: String? = nil, appId: String? = nil
  ) {
    self.userId = userId
    self.store = store
    self.receipt = receipt
    self.purchaseToken = purchaseToken
    self.receiptId = receiptId
    self.amazonUserId = amazonUserId
    self.productId = productId
    self.appId = appId
  }
}

/// Where a submission stands.
public enum SubmissionState: String, Sendable, Hashable, Codable {
  case pending
  case processing
  case verified
  case rejected
  case failed
}

public struct SubmissionRecord: Sendable, Hashable {
  public var id: Int64
  public var submission: PurchaseSubmission
  public var state: SubmissionState
  public var receivedAtMs: Int64
  /// Why it was rejected or failed, or what it verified to; nil while pending.
  public var outcome: String?

  public init(id: Int64, submission: PurchaseSubmission, state: SubmissionState, receivedAtMs: Int64, outcome: String?)
  {
    self.id = id
    self.submission = submission
    self.state = state
    self.receivedAtMs = receivedAtMs
    self.outcome = outcome
  }
}

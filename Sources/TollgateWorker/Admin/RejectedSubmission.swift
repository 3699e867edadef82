/// A purchase a user submitted that the worker rejected, with why (a claim refused under the
/// transfer policy or the app account token, a store's final no): what `explain` shows of the
/// user's refused claims. Kept as long as the inbox keeps finished items (`inboxRetentionMs`).
public struct RejectedSubmission: Sendable, Hashable, Codable {
  /// The store the purchase was submitted for (`app_store`, `google_play`, `amazon`).
  public var store: String
  /// The product the caller named, if any.
  public var productId: String?
  public var receivedAtMs: Int64
  /// When the worker rejected it; nil when the storage does not record it.
  public var rejectedAtMs: Int64?
  /// The worker's reason, as the caller was told (`GetSubmission`).
  public var reason: String

  public init(store: String, productId: String?, receivedAtMs: Int64, rejectedAtMs: Int64?, reason: String) {
    self.store = store
    self.productId = productId
    self.receivedAtMs = receivedAtMs
    self.rejectedAtMs = rejectedAtMs
    self.reason = reason
  }
}

import TollgateCore

/// How a GDPR erase (`WorkerStorage.eraseUser`) takes a user's name out of other users' events,
/// the same in every storage. The claim and transfer events `ClaimRuling` writes name the other
/// party at the start of their detail ("claimed by U under …", "claimed by U, whose id …",
/// "from U under …"); an erase of U replaces exactly that name with "an erased user" in events of
/// `kinds`, and leaves any other text alone (a short user id is also a part of other words).
public enum ErasureText {
  /// The event kinds whose detail may name another user.
  public static let kinds = ["transferred", "transfer_refused", "claim_refused"]
  /// What stands for the erased user.
  public static let erasedUser = "an erased user"
  /// The kind of the newest event of the database when it was the erased user's: kept, with
  /// nothing of the user, so that its id is never handed out again (`events(after:limit:)`).
  public static let placeholderKind = "erased"
  /// The reason of the change-feed entry an erase writes (the user's records, now none): every
  /// replica drops the user, and housekeeping deletes the feed through it later
  /// (`PrunePlan.erasureMarkersBeforeMs`).
  public static let feedReason = "erased"

  /// The starts of a detail that name `userId`, each with what replaces it.
  public static func prefixes(naming userId: String) -> [(prefix: String, replacement: String)] {
    [
      ("claimed by \(userId) under ", "claimed by \(erasedUser) under "),
      ("claimed by \(userId), ", "claimed by \(erasedUser), "),
      ("from \(userId) under ", "from \(erasedUser) under "),
    ]
  }

  /// `event` without `userId`'s name, or nil when its detail does not name them.
  public static func scrubbed(_ event: WorkerEvent, userId: String) -> WorkerEvent? {
    guard kinds.contains(event.kind), let detail = event.detail else { return nil }
    for (prefix, replacement) in prefixes(naming: userId) where detail.hasPrefix(prefix) {
      var scrubbed = event
      scrubbed.detail = replacement + detail.dropFirst(prefix.count)
      return scrubbed
    }
    return nil
  }

  /// The newest event of the database, when the erased user's: its kind, store and time stay.
  public static func placeholder(of event: WorkerEvent) -> WorkerEvent {
    WorkerEvent(
      userId: nil, kind: placeholderKind, store: event.store, purchaseId: "", productId: nil, state: nil,
      atMs: event.atMs)
  }
}

/// The store a purchase was made in.
///
/// `promotional` is not a store: it marks entitlements an operator granted by hand
/// (web billing, support), which take part in evaluation on equal terms.
public enum Store: String, Sendable, Hashable, Codable, CaseIterable {
  case appStore = "app_store"
  case googlePlay = "google_play"
  case amazon = "amazon"
  case promotional = "promotional"
}

/// Where a purchase was made: the real store or its test environment.
public enum StoreEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
  case production
  case sandbox
}

extension Store {
  /// A purchase id as logs may hold it: never whole. A Google Play purchase token is a
  /// credential for the purchase (anyone holding it can look the purchase up with the app's API
  /// access), and an Amazon receipt id, with the user id, reads the receipt from RVS: only the
  /// first 12 characters of either are logged. Apple's transaction ids are shortened to their
  /// first 8 digits, enough to find a purchase in the database, too few to name it to the store.
  public func loggable(_ purchaseId: String) -> String {
    let kept =
      switch self {
      case .googlePlay, .amazon: 12
      case .appStore, .promotional: 8
      }
    return purchaseId.count > kept ? "\(purchaseId.prefix(kept))…" : purchaseId
  }
}

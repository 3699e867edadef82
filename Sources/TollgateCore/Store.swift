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
  /// A purchase id as logs may hold it. A Google Play purchase token is a credential for the
  /// purchase (anyone holding it can look the purchase up with the app's API access): only its
  /// first 12 characters are logged. Apple's transaction ids and Amazon's receipt ids are
  /// identifiers, kept whole.
  public func loggable(_ purchaseId: String) -> String {
    switch self {
    case .googlePlay: purchaseId.count > 12 ? "\(purchaseId.prefix(12))…" : purchaseId
    case .appStore, .amazon, .promotional: purchaseId
    }
  }
}

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

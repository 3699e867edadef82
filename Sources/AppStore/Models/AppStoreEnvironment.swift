/// Apple's `environment` values. Payloads keep the raw string; this is the typed view.
public enum AppStoreEnvironment: String, Sendable, Hashable, CaseIterable, Codable {
  case production = "Production"
  case sandbox = "Sandbox"
  /// StoreKit testing in Xcode: payloads are not signed by the App Store.
  case xcode = "Xcode"
  /// StoreKit local testing: payloads are not signed by the App Store.
  case localTesting = "LocalTesting"

  /// Whether payloads from this environment carry an App Store signature worth checking.
  public var isSignedByAppStore: Bool { self == .production || self == .sandbox }
}

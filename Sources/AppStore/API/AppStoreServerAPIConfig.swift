/// Where and how to call the App Store Server API.
public struct AppStoreServerAPIConfig: Sendable {
  public static let productionBaseURL = "https://api.storekit.itunes.apple.com"
  public static let sandboxBaseURL = "https://api.storekit-sandbox.itunes.apple.com"

  /// Scheme and host (and port) without a trailing slash: production, sandbox, or the simulator.
  public var baseURL: String
  /// Per-request timeout.
  public var timeout: Duration

  public init(baseURL: String, timeout: Duration = .seconds(10)) {
    self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    self.timeout = timeout
  }
}

/// Where the Android Publisher API answers (Google, or the simulator) and how long a call may take.
public struct AndroidPublisherConfig: Sendable, Hashable {
  public static let productionBaseURL = "https://androidpublisher.googleapis.com"

  public var baseURL: String
  public var timeout: Duration

  public init(baseURL: String = AndroidPublisherConfig.productionBaseURL, timeout: Duration = .seconds(10)) {
    self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    self.timeout = timeout
  }
}

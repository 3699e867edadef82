/// Where the Receipt Verification Service answers (Amazon, or the simulator), production and
/// cloud sandbox, and how long a call may take.
public struct RVSConfig: Sendable, Hashable {
  public var productionBaseURL: String
  public var sandboxBaseURL: String
  public var timeout: Duration

  public init(
    productionBaseURL: String = AmazonAppstore.productionRVSBaseURL,
    sandboxBaseURL: String = AmazonAppstore.sandboxRVSBaseURL, timeout: Duration = .seconds(10)
  ) {
    self.productionBaseURL = Self.trimmed(productionBaseURL)
    self.sandboxBaseURL = Self.trimmed(sandboxBaseURL)
    self.timeout = timeout
  }

  public func baseURL(sandbox: Bool) -> String { sandbox ? sandboxBaseURL : productionBaseURL }

  private static func trimmed(_ url: String) -> String {
    var url = Substring(url)
    while url.hasSuffix("/") { url = url.dropLast() }
    return String(url)
  }
}

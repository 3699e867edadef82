/// One of the company's own endpoints that receives state-change events.
public struct WebhookSettings: Sendable, Decodable, Hashable {
  public var url: String
  /// Environment variable holding the HMAC-SHA256 secret. Never logged.
  public var secretEnv: String
  /// Only these kinds (`purchased`, `renewed`, `expired`, …); all when absent.
  public var events: [String]?

  public init(url: String, secretEnv: String, events: [String]? = nil) {
    self.url = url
    self.secretEnv = secretEnv
    self.events = events
  }

  func problems(environment: [String: String]) -> [String] {
    var problems: [String] = []
    if !(url.hasPrefix("https://") || url.hasPrefix("http://")) { problems.append("url must be http(s)") }
    if (environment[secretEnv] ?? "").isEmpty { problems.append("secretEnv names $\(secretEnv), which is not set") }
    return problems
  }
}

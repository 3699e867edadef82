import Foundation

/// One of the company's own endpoints that receives state-change events.
public struct WebhookSettings: Sendable, Decodable, Hashable {
  public var url: String
  /// The HMAC-SHA256 secret: an environment variable holding it, or a file (`ConfigSecret`);
  /// exactly one of the two. Never logged.
  public var secretEnv: String?
  public var secretFile: String?
  /// Only these kinds (`purchased`, `renewed`, `expired`, …; one of `WorkerEvent.kinds` each, else
  /// the file is refused); all when absent.
  public var events: [String]?
  /// An event this endpoint has failed to take this many times in a row is parked (kept aside for
  /// `tollgate webhooks redeliver`) and the events after it are delivered.
  public var maxAttempts: Int = 12
  /// An event this endpoint has failed to take for this long since its first failed attempt is
  /// parked, however few attempts that was.
  public var maxAgeMs: Int64 = 86_400_000

  public init(
    url: String, secretEnv: String? = nil, secretFile: String? = nil, events: [String]? = nil, maxAttempts: Int = 12,
    maxAgeMs: Int64 = 86_400_000
  ) {
    self.url = url
    self.secretEnv = secretEnv
    self.secretFile = secretFile
    self.events = events
    self.maxAttempts = maxAttempts
    self.maxAgeMs = maxAgeMs
  }

  enum CodingKeys: String, CodingKey {
    case url, secretEnv, secretFile, events, maxAttempts, maxAgeMs
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = WebhookSettings(url: "")
    url = try c.decode(String.self, forKey: .url)
    secretEnv = try c.decodeIfPresent(String.self, forKey: .secretEnv)
    secretFile = try c.decodeIfPresent(String.self, forKey: .secretFile)
    events = try c.decodeIfPresent([String].self, forKey: .events)
    maxAttempts = try c.decodeIfPresent(Int.self, forKey: .maxAttempts) ?? d.maxAttempts
    maxAgeMs = try c.decodeIfPresent(Int64.self, forKey: .maxAgeMs) ?? d.maxAgeMs
  }

  /// The signing secret's source (`secretEnv` or `secretFile`).
  public var secret: ConfigSecret { ConfigSecret(key: "secret", env: secretEnv, file: secretFile) }

  /// When an event this endpoint keeps refusing is parked.
  public var retryLimit: WebhookRetryLimit { WebhookRetryLimit(maxAttempts: maxAttempts, maxAgeMs: maxAgeMs) }

  /// The endpoint as metrics and `/health` name it: scheme, host, port and path, without any
  /// user, password, query or fragment the URL may carry.
  public var displayName: String {
    guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
    else { return "webhook" }
    let port = components.port.map { ":\($0)" } ?? ""
    return "\(scheme)://\(host)\(port)\(components.path)"
  }

  func problems(environment: [String: String]) -> [String] {
    var problems: [String] = []
    if !(url.hasPrefix("https://") || url.hasPrefix("http://")) { problems.append("url must be http(s)") }
    if let problem = secret.problem(environment: environment, required: true) { problems.append(problem) }
    for kind in events ?? [] where !WorkerEvent.kinds.contains(kind) {
      let known = WorkerEvent.kinds.joined(separator: ", ")
      problems.append("events: \"\(kind)\" is not an event kind (known: \(known))")
    }
    if maxAttempts < 1 { problems.append("maxAttempts must be at least 1") }
    if maxAgeMs < 1_000 { problems.append("maxAgeMs must be at least 1000") }
    return problems
  }
}

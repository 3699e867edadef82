import AsyncHTTPClient
import Logging

/// The service account's OAuth 2.0 access token for the Android Publisher API: obtained with
/// the JWT-bearer grant, cached, and replaced `refreshMarginMs` before it expires. One request to
/// the token endpoint is in flight at a time; callers that arrive meanwhile wait for its answer.
/// Neither the key, the assertion nor the token is ever logged.
public actor GoogleAccessTokenProvider {
  public struct Config: Sendable, Hashable {
    /// How long before expiry the token is replaced.
    public var refreshMarginMs: Int64
    /// How long one token request may take.
    public var timeout: Duration

    public init(refreshMarginMs: Int64 = 300_000, timeout: Duration = .seconds(15)) {
      self.refreshMarginMs = refreshMarginMs
      self.timeout = timeout
    }

    public static var defaults: Config { Config() }
  }

  private struct Cached {
    var token: String
    var refreshAtMs: Int64
    var expiresAtMs: Int64
  }

  private let assertion: ServiceAccountAssertion
  private let endpoint: TokenEndpoint
  private let config: Config
  private let now: @Sendable () -> Int64
  private let logger: Logger

  private var cached: Cached?
  /// Non-nil while a token request runs: the callers waiting for it.
  private var waiters: [CheckedContinuation<Result<String, GoogleAuthError>, Never>]?

  public init(
    key: ServiceAccountKey, scope: String = GooglePlay.androidPublisherScope, config: Config = .defaults,
    httpClient: HTTPClient, now: @escaping @Sendable () -> Int64, logger: Logger
  ) {
    self.assertion = ServiceAccountAssertion(key: key, scope: scope)
    self.endpoint = TokenEndpoint(url: key.tokenURI, httpClient: httpClient, timeout: config.timeout)
    self.config = config
    self.now = now
    self.logger = logger
  }

  /// A valid access token: the cached one until its refresh time, else a new one.
  public func accessToken() async throws(GoogleAuthError) -> String {
    if let cached, now() < cached.refreshAtMs { return cached.token }
    if waiters != nil {
      return try await withCheckedContinuation { waiters?.append($0) }.get()
    }
    waiters = []
    let result = await requestToken()
    let waiting = waiters ?? []
    waiters = nil
    for waiter in waiting { waiter.resume(returning: result) }
    return try result.get()
  }

  private func requestToken() async -> Result<String, GoogleAuthError> {
    let issuedMs = now()
    do throws(GoogleAuthError) {
      let compact = try assertion.compact(nowSeconds: issuedMs / 1_000)
      let grant = try await endpoint.exchange(assertion: compact)
      let expiresAtMs = issuedMs + grant.expiresInSeconds * 1_000
      let refreshAtMs = max(issuedMs, expiresAtMs - config.refreshMarginMs)
      cached = Cached(token: grant.accessToken, refreshAtMs: refreshAtMs, expiresAtMs: expiresAtMs)
      logger.debug(
        "obtained a Google access token",
        metadata: [
          "google.client_email": "\(assertion.key.clientEmail)", "google.token.expires_at_ms": "\(expiresAtMs)",
        ])
      return .success(grant.accessToken)
    } catch {
      logger.warning(
        "cannot obtain a Google access token",
        metadata: ["google.client_email": "\(assertion.key.clientEmail)", "error": "\(error)"])
      // A token that has not expired yet is still good while the endpoint is unavailable.
      if error.isTransient, let cached, now() < cached.expiresAtMs { return .success(cached.token) }
      return .failure(error)
    }
  }
}

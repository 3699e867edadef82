import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import TollgateCore

/// Google's OIDC keys for the worker: fetched from a configured URL (Google's
/// `https://www.googleapis.com/oauth2/v3/certs`, or the simulator's), kept as long as the answer's
/// `Cache-Control: max-age` says, and refetched early when a token names an unknown `kid` — at
/// most once per `minimumRefetchIntervalMs`, so forged `kid`s cannot make Tollgate hammer Google.
///
/// One fetch is in flight at a time: callers that arrive during a fetch wait for its result.
/// A failed refetch keeps the keys already cached.
public actor GoogleKeySetCache {
  public struct Config: Sendable, Hashable {
    public var url: String
    /// How long one fetch may take.
    public var timeout: Duration
    /// The least time between two fetches that are not due to expiry (unknown `kid`, failures).
    public var minimumRefetchIntervalMs: Int64
    /// How long keys are kept when the answer has no `max-age`.
    public var defaultMaxAgeMs: Int64

    public static let googleURL = "https://www.googleapis.com/oauth2/v3/certs"

    public init(
      url: String = Self.googleURL, timeout: Duration = .seconds(10), minimumRefetchIntervalMs: Int64 = 60_000,
      defaultMaxAgeMs: Int64 = 300_000
    ) {
      self.url = url
      self.timeout = timeout
      self.minimumRefetchIntervalMs = minimumRefetchIntervalMs
      self.defaultMaxAgeMs = defaultMaxAgeMs
    }
  }

  private let config: Config
  private let httpClient: HTTPClient
  private let now: @Sendable () -> Int64
  private let logger: Logger

  private var keySet: GoogleKeySet?
  private var expiresAtMs: Int64 = .min
  private var lastAttemptMs: Int64?
  private var lastAttemptFailed = false
  /// Non-nil while a fetch runs: the callers waiting for it.
  private var waiters: [CheckedContinuation<Result<GoogleKeySet, OIDCVerificationError>, Never>]?

  public init(config: Config, httpClient: HTTPClient, now: @escaping @Sendable () -> Int64, logger: Logger) {
    self.config = config
    self.httpClient = httpClient
    self.now = now
    self.logger = logger
  }

  /// The keys to verify a token whose header names `kid`: the cached set when it is fresh and
  /// knows `kid`, else a fetched one when a fetch is allowed, else the cached set (the verifier
  /// then reports the unknown `kid`). Throws `.keySetUnavailable` only when nothing is cached.
  public func keys(for kid: String?) async throws(OIDCVerificationError) -> GoogleKeySet {
    let nowMs = now()
    if let keySet, nowMs < expiresAtMs, kid.map({ keySet.keys[$0] != nil }) ?? true {
      return keySet
    }
    guard fetchAllowed(nowMs: nowMs) else {
      if let keySet { return keySet }
      throw OIDCVerificationError(code: .keySetUnavailable, message: "Google's keys could not be fetched recently")
    }
    switch await sharedFetch() {
    case .success(let fresh): return fresh
    case .failure(let error):
      if let keySet { return keySet }
      throw error
    }
  }

  private func fetchAllowed(nowMs: Int64) -> Bool {
    guard let lastAttemptMs else { return true }
    let expired = nowMs >= expiresAtMs
    if expired, !lastAttemptFailed { return true }
    return nowMs - lastAttemptMs >= config.minimumRefetchIntervalMs
  }

  private func sharedFetch() async -> Result<GoogleKeySet, OIDCVerificationError> {
    if waiters != nil {
      return await withCheckedContinuation { waiters?.append($0) }
    }
    waiters = []
    let startedMs = now()
    let result = await fetch()
    lastAttemptMs = startedMs
    switch result {
    case .success(let (fresh, maxAgeMs)):
      keySet = fresh
      expiresAtMs = startedMs + (maxAgeMs ?? config.defaultMaxAgeMs)
      lastAttemptFailed = false
      logger.debug(
        "fetched Google's OIDC keys",
        metadata: ["google.jwks.keys": "\(fresh.keys.count)", "google.jwks.max_age_ms": "\(maxAgeMs ?? -1)"])
    case .failure(let error):
      lastAttemptFailed = true
      logger.warning(
        "cannot fetch Google's OIDC keys", metadata: ["google.jwks.url": "\(config.url)", "error": "\(error)"])
    }
    let answer = result.map(\.0)
    let waiting = waiters ?? []
    waiters = nil
    for waiter in waiting { waiter.resume(returning: answer) }
    return answer
  }

  private func fetch() async -> Result<(GoogleKeySet, Int64?), OIDCVerificationError> {
    let unavailable = { (message: String) in OIDCVerificationError(code: .keySetUnavailable, message: message) }
    let response: HTTPClientResponse
    let body: ByteBuffer
    do {
      response = try await httpClient.execute(
        HTTPClientRequest(url: config.url), timeout: .nanoseconds(config.timeout.nanoseconds))
      body = try await response.body.collect(upTo: 1 << 20)
    } catch {
      return .failure(unavailable("no answer from \(config.url): \(error)"))
    }
    guard response.status == .ok else {
      return .failure(unavailable("\(config.url) answered \(response.status.code)"))
    }
    do {
      let keySet = try GoogleKeySet(json: Array(body.readableBytesView))
      return .success((keySet, Self.maxAgeMs(response.headers["Cache-Control"])))
    } catch {
      return .failure(unavailable("\(config.url) answered no usable key set: \(error.message)"))
    }
  }

  /// `max-age` of `Cache-Control` values, in milliseconds (`no-store`/`no-cache` count as 0).
  static func maxAgeMs(_ values: [String]) -> Int64? {
    for directive in values.flatMap({ $0.split(separator: ",") }) {
      let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
      switch parts[0].lowercased() {
      case "no-store", "no-cache": return 0
      case "max-age":
        if parts.count == 2, let seconds = Int64(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))),
          seconds >= 0, seconds < Int64.max / 1_000
        {
          return seconds * 1_000
        }
      default: continue
      }
    }
    return nil
  }
}

import Logging

/// Authenticates one Pub/Sub push request before anything is stored: the bearer token of its
/// `Authorization` header, verified with Google's keys from the cache at the current moment.
public struct PubSubPushAuthenticator: Sendable {
  public let verifier: OIDCTokenVerifier
  private let keys: GoogleKeySetCache
  private let now: @Sendable () -> Int64
  private let logger: Logger

  public init(
    verifier: OIDCTokenVerifier, keys: GoogleKeySetCache, now: @escaping @Sendable () -> Int64, logger: Logger
  ) {
    self.verifier = verifier
    self.keys = keys
    self.now = now
    self.logger = logger
  }

  /// The verified claims, or why the request is refused (`isTransient`: answer 503, not 401/403).
  public func authenticate(authorization: String?) async -> Result<GoogleIDToken.Claims, OIDCVerificationError> {
    guard let compact = GoogleIDToken.bearerToken(fromAuthorization: authorization) else {
      return .failure(OIDCVerificationError(code: .missingToken, message: "no Authorization: Bearer token"))
    }
    let token: GoogleIDToken
    switch GoogleIDToken.parse(compact) {
    case .success(let parsed): token = parsed
    case .failure(let error): return .failure(error)
    }
    guard token.header.alg == "RS256" else {
      return verifier.verify(token, keys: GoogleKeySet(keys: [:]), nowMs: now())
    }
    do {
      let keySet = try await keys.keys(for: token.header.kid)
      let result = verifier.verify(token, keys: keySet, nowMs: now())
      if case .failure(let error) = result {
        // The token itself is never logged; its kid and the reason are enough.
        logger.info(
          "refused a Pub/Sub push token",
          metadata: ["google.oidc.kid": "\(token.header.kid ?? "-")", "google.oidc.error": "\(error.code)"])
      }
      return result
    } catch {
      return .failure(error)
    }
  }
}

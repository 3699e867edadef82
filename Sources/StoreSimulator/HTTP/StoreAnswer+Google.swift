import HTTPTypes

/// Google's error bodies: the Google API error shape of the Android Publisher API and the OAuth
/// 2.0 error of the token endpoint, plus what each fault mode answers for the Google targets.
extension StoreAnswer {
  /// `{"error": {"code", "message", "status", "errors": [{"message", "domain", "reason"}]}}`.
  static func googleError(
    _ status: Int, _ message: String, reason: String, domain: String = "androidpublisher", headers: HTTPFields = [:]
  ) -> StoreAnswer {
    struct Item: Encodable {
      var message: String
      var domain: String
      var reason: String
    }
    struct Problem: Encodable {
      var code: Int
      var message: String
      var status: String?
      var errors: [Item]
    }
    struct Body: Encodable { var error: Problem }
    let canonical: String? =
      switch status {
      case 400: "INVALID_ARGUMENT"
      case 401: "UNAUTHENTICATED"
      case 403: "PERMISSION_DENIED"
      case 404: "NOT_FOUND"
      case 429: "RESOURCE_EXHAUSTED"
      case 500: "INTERNAL"
      case 503: "UNAVAILABLE"
      default: nil
      }
    let problem = Problem(
      code: status, message: message, status: canonical,
      errors: [Item(message: message, domain: domain, reason: reason)])
    return json(Body(error: problem), status: .init(code: status), headers: headers)
  }

  /// The API's answer to a missing, unknown or expired access token.
  static var googleUnauthenticated: StoreAnswer {
    googleError(
      401,
      "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid "
        + "authentication credential.", reason: "authError", domain: "global")
  }

  /// The token endpoint's `{"error", "error_description"}`.
  static func googleOAuthError(_ status: Int, _ error: String, _ description: String, headers: HTTPFields = [:])
    -> StoreAnswer
  {
    struct Body: Encodable {
      var error: String
      var error_description: String
    }
    return json(Body(error: error, error_description: description), status: .init(code: status), headers: headers)
  }

  /// What `mode` answers for a Google target, when the answer is an error body; `nil` otherwise.
  static func googleFault(_ target: String, _ mode: FaultRule.Mode, retryAfterSeconds: Int?) -> StoreAnswer? {
    guard target.hasPrefix("google.") else { return nil }
    let retryAfter = HTTPAnswer.retryAfter(retryAfterSeconds)
    if target == "google.token" {
      switch mode {
      case .error500: return googleOAuthError(500, "internal_failure", "Backend Error")
      case .rateLimit: return googleOAuthError(429, "rate_limit_exceeded", "Rate Limit Exceeded", headers: retryAfter)
      case .unauthorized:
        return googleOAuthError(
          401, "unauthorized_client",
          "Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of "
            + "the scopes requested.")
      default: return nil
      }
    }
    switch mode {
    case .error500: return googleError(500, "Internal error encountered.", reason: "backendError", domain: "global")
    case .rateLimit:
      return googleError(
        429, "Rate Limit Exceeded", reason: "rateLimitExceeded", domain: "usageLimits", headers: retryAfter)
    case .unauthorized: return googleUnauthenticated
    case .notFound:
      return googleError(404, "The purchase token was not found.", reason: "purchaseTokenNotFound", domain: "global")
    default: return nil
    }
  }
}

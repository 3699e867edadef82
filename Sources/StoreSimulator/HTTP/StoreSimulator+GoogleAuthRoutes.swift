import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TollgateCrypto

/// Google's OAuth 2.0 token endpoint (the JWT-bearer grant of the service account the simulator
/// issued) and the JWKS of the key that signs Pub/Sub push tokens.
extension StoreSimulator {
  static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

  func addGoogleAuthRoutes(to router: Router<SimRequestContext>) {
    router.post("/token") { request, context in
      await self.storeAnswer("google.token", request, context) { () async -> StoreAnswer in
        await self.tokenGrant(request)
      }
    }
    router.get("/oauth2/v3/certs") { _, _ in
      var headers: HTTPFields = [.contentType: "application/json; charset=UTF-8"]
      headers[.cacheControl] = "public, max-age=\(self.config.google.jwksMaxAgeSeconds), must-revalidate, no-transform"
      return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: self.googleJWKS)))
    }
  }

  /// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`: the assertion must be
  /// signed by the issued service account's key, `iss` its email, `aud` this endpoint, `scope`
  /// the Android Publisher API's, and `iat`/`exp` at most an hour apart around now (real or virtual).
  private func tokenGrant(_ request: Request) async -> StoreAnswer {
    var request = request
    guard let buffer = try? await request.collectBody(upTo: 64 << 10) else {
      return .googleOAuthError(400, "invalid_request", "Unreadable request body.")
    }
    let form = Self.formFields(String(buffer: buffer))
    guard form["grant_type"] == Self.jwtBearerGrant else {
      return .googleOAuthError(400, "unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")")
    }
    guard let assertion = form["assertion"], !assertion.isEmpty else {
      return .googleOAuthError(400, "invalid_request", "Missing required parameter: assertion")
    }
    if let refusal = checkAssertion(assertion) {
      logger.info("Google token request refused", metadata: ["google.reason": "\(refusal.1)"])
      return .googleOAuthError(400, refusal.0, refusal.1)
    }
    struct Grant: Encodable {
      var access_token: String
      var expires_in: Int64
      var token_type: String
    }
    let token = googleAccessTokens.issue(realNowMs: NotificationDispatcher.realNowMs())
    return .json(
      Grant(access_token: token, expires_in: GoogleAccessTokens.lifetimeSeconds - 1, token_type: "Bearer"),
      headers: [.cacheControl: "no-cache, no-store, max-age=0, must-revalidate"])
  }

  /// Why Google would refuse the assertion (`error`, `error_description`), or `nil`.
  private func checkAssertion(_ assertion: String) -> (String, String)? {
    let signature = ("invalid_grant", "Invalid JWT Signature.")
    guard let jwt = GoogleJWT.parse(assertion), jwt.header["alg"] as? String == "RS256" else { return signature }
    let credentials = googleCredentials
    guard jwt.string("iss") == credentials.clientEmail else {
      return ("invalid_grant", "Invalid grant: account not found")
    }
    if let kid = jwt.kid, kid != credentials.privateKeyId { return signature }
    guard RS256.isValidSignature(jwt.signature, for: jwt.signingInput, publicKey: credentials.serviceAccountPublicKey)
    else { return signature }
    guard let audience = jwt.string("aud"), audience == googleTokenURI || audience.hasSuffix(":\(port)/token") else {
      return ("invalid_grant", "Invalid JWT: Failed audience check.")
    }
    guard let scope = jwt.string("scope"), !scope.isEmpty else {
      return ("invalid_scope", "Empty or missing scope not allowed.")
    }
    guard scope.split(separator: " ").contains(where: { $0.hasSuffix("/auth/androidpublisher") }) else {
      return ("invalid_scope", "Invalid OAuth scope or ID token audience provided.")
    }
    let timeframe = (
      "invalid_grant",
      "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat "
        + "and exp values in the JWT claim."
    )
    guard let iat = jwt.seconds("iat"), let exp = jwt.seconds("exp"), exp > iat, exp - iat <= 3_600 else {
      return timeframe
    }
    // Google checks against its own (real) clock; a worker that follows the virtual clock signs
    // with virtual time, so either is accepted.
    let sane = [NotificationDispatcher.realNowMs() / 1000, clockNowMs / 1000].contains { now in
      iat <= now + 300 && exp > now - 300
    }
    return sane ? nil : timeframe
  }

  /// `application/x-www-form-urlencoded` fields (`+` is a space).
  static func formFields(_ body: String) -> [String: String] {
    var fields: [String: String] = [:]
    for pair in body.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1).map {
        $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
      }
      if let name = parts.first { fields[name] = parts.count > 1 ? parts[1] : "" }
    }
    return fields
  }
}

import AsyncHTTPClient
import Foundation
import GooglePlay
import Logging
import Testing
import TollgateCrypto
import TollgateTesting

@Suite("Service-account access tokens", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct AuthAccessTokenTests {
  static let path = "/token"

  private func withProvider(
    _ body: (ScriptedHTTPServer, GoogleAccessTokenProvider, ManualClock) async throws -> Void
  ) async throws {
    let server = try await ScriptedHTTPServer.start()
    var key = try AuthServiceAccountTests.vectorKey()
    key.tokenURI = server.baseURL + Self.path
    let clock = ManualClock(nowMs: 1_700_000_000_000)
    let provider = GoogleAccessTokenProvider(
      key: key, config: .init(timeout: .seconds(5)), httpClient: .shared, now: clock.function,
      logger: Logger(label: "test"))
    do {
      try await body(server, provider, clock)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  private func tokenReply(delay: Duration? = nil) throws -> ScriptedHTTPServer.Reply {
    .init(
      status: 200, headers: ["Content-Type": "application/json"],
      body: try Vectors.bytes("google/aporat-oauth/oauth2-token-response.json"), delay: delay)
  }

  private func requests(_ server: ScriptedHTTPServer) -> [ScriptedHTTPServer.Recorded] {
    server.recorded.filter { $0.path == Self.path }
  }

  /// The form fields of a recorded request, percent-decoded.
  private func form(_ request: ScriptedHTTPServer.Recorded) -> [String: String] {
    var fields: [String: String] = [:]
    for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
      fields[parts[0]] = parts.count == 2 ? parts[1] : ""
    }
    return fields
  }

  @Test("the JWT-bearer grant posts a form with a valid assertion and yields the vector's token")
  func tokenFlow() async throws {
    try await withProvider { server, provider, _ in
      server.enqueue("POST", Self.path, try tokenReply())
      #expect(try await provider.accessToken() == "ya29.test-access-token")
      let request = try #require(requests(server).first)
      #expect(request.method == "POST")
      #expect(request.headers["content-type"] == "application/x-www-form-urlencoded")
      let fields = form(request)
      #expect(fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer")
      let assertion = try #require(fields["assertion"])
      let parts = assertion.split(separator: ".")
      #expect(parts.count == 3)
      let payload = try #require(Base64URL.decode(parts[1]))
      let claims = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
      let signature = try #require(Base64URL.decode(parts[2]))
      #expect(claims["aud"] as? String == server.baseURL + Self.path)
      #expect(claims["iat"] as? Int64 == 1_700_000_000)
      let object =
        try JSONSerialization.jsonObject(
          with: Data(try Vectors.bytes(AuthServiceAccountTests.keyFile))) as? [String: Any]
      let privateKey = try RSAPrivateKey(pem: try #require(object?["private_key"] as? String))
      let input = Array("\(parts[0]).\(parts[1])".utf8)
      #expect(RS256.isValidSignature(signature, for: input, publicKey: privateKey.publicKey))
    }
  }

  @Test("the token is cached until 5 minutes before expiry, then refreshed")
  func cachingAndRefresh() async throws {
    try await withProvider { server, provider, clock in
      server.enqueue("POST", Self.path, try tokenReply())
      server.enqueue("POST", Self.path, try tokenReply())
      _ = try await provider.accessToken()
      clock.advance(byMs: (3_599 - 300) * 1_000 - 1)
      _ = try await provider.accessToken()
      #expect(requests(server).count == 1)
      clock.advance(byMs: 1)
      #expect(try await provider.accessToken() == "ya29.test-access-token")
      #expect(requests(server).count == 2)
    }
  }

  @Test("callers that arrive during a token request share it")
  func oneRequestInFlight() async throws {
    try await withProvider { server, provider, _ in
      server.enqueue("POST", Self.path, try tokenReply(delay: .milliseconds(200)))
      async let first = provider.accessToken()
      async let second = provider.accessToken()
      async let third = provider.accessToken()
      let tokens = try await [first, second, third]
      #expect(tokens == Array(repeating: "ya29.test-access-token", count: 3))
      #expect(requests(server).count == 1)
    }
  }

  @Test("invalid_grant and unauthorized_client are operator errors; 5xx is transient; a bad 200 is malformed")
  func errors() async throws {
    try await withProvider { server, provider, _ in
      let replies: [(ScriptedHTTPServer.Reply, GoogleAuthError.Code)] = [
        (.json(400, ["error": "invalid_grant", "error_description": "Invalid JWT Signature."]), .invalidGrant),
        (.json(401, ["error": "unauthorized_client"]), .unauthorizedClient),
        (.json(400, ["error": "invalid_scope"]), .rejected),
        (.init(status: 503), .unavailable),
        (.json(200, ["token_type": "Bearer"]), .malformedResponse),
      ]
      for (reply, expected) in replies {
        server.enqueue("POST", Self.path, reply)
        await #expect { try await provider.accessToken() } throws: { error in
          guard let error = error as? GoogleAuthError, error.code == expected else { return false }
          let needsOperator = expected == .invalidGrant || expected == .unauthorizedClient || expected == .rejected
          return error.isOperatorError == needsOperator && error.isTransient == !needsOperator
            && !"\(error)".contains("eyJ")
        }
      }
    }
  }

  @Test("a transient failure at refresh time keeps serving the unexpired token")
  func transientRefreshKeepsToken() async throws {
    try await withProvider { server, provider, clock in
      server.enqueue("POST", Self.path, try tokenReply())
      server.enqueue("POST", Self.path, .init(status: 500))
      server.enqueue("POST", Self.path, .json(400, ["error": "invalid_grant"]))
      _ = try await provider.accessToken()
      clock.advance(byMs: 3_400_000)
      #expect(try await provider.accessToken() == "ya29.test-access-token")
      await #expect { try await provider.accessToken() } throws: {
        ($0 as? GoogleAuthError)?.code == .invalidGrant
      }
      #expect(requests(server).count == 3)
    }
  }
}

import AsyncHTTPClient
import GooglePlay
import Logging
import Testing
import TollgateCrypto
import TollgateTesting

@Suite("Google's OIDC key cache", .enabled(if: Vectors.shouldRun, Comment(rawValue: Vectors.skipMessage)))
struct OIDCKeySetCacheTests {
  typealias T = OIDCTestTokens
  static let path = "/oauth2/v3/certs"
  static let knownKid = "f9d97b4cae90bcd76aeb20026f6b770cac221783"

  private func keySetReply(maxAge: Int?) throws -> ScriptedHTTPServer.Reply {
    var headers = ["Content-Type": "application/json"]
    if let maxAge { headers["Cache-Control"] = "public, max-age=\(maxAge), must-revalidate, no-transform" }
    return ScriptedHTTPServer.Reply(status: 200, headers: headers, body: try Vectors.bytes(T.jwks))
  }

  private func withServer(_ body: (ScriptedHTTPServer) async throws -> Void) async throws {
    let server = try await ScriptedHTTPServer.start()
    do {
      try await body(server)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  private func fetches(_ server: ScriptedHTTPServer) -> Int { server.recorded.filter { $0.path == Self.path }.count }

  private func makeCache(_ server: ScriptedHTTPServer, clock: ManualClock) -> GoogleKeySetCache {
    GoogleKeySetCache(
      config: .init(url: server.baseURL + Self.path, timeout: .seconds(5)), httpClient: .shared, now: clock.function,
      logger: Logger(label: "test"))
  }

  @Test("keys are kept for max-age and fetched again after it")
  func maxAgeHonoured() async throws {
    try await withServer { server in
      server.enqueue("GET", Self.path, try keySetReply(maxAge: 600))
      server.enqueue("GET", Self.path, try keySetReply(maxAge: 600))
      let clock = ManualClock(nowMs: 1_000_000)
      let cache = makeCache(server, clock: clock)
      let first = try await cache.keys(for: Self.knownKid)
      #expect(first.keys.count == 2)
      clock.advance(byMs: 599_000)
      _ = try await cache.keys(for: Self.knownKid)
      #expect(fetches(server) == 1)
      clock.advance(byMs: 1_000)
      _ = try await cache.keys(for: Self.knownKid)
      #expect(fetches(server) == 2)
    }
  }

  @Test("an unknown kid refetches once, then not again within a minute; a failed refetch keeps the cached keys")
  func unknownKidRefetch() async throws {
    try await withServer { server in
      for _ in 0..<2 { server.enqueue("GET", Self.path, try keySetReply(maxAge: 3_600)) }
      server.enqueue("GET", Self.path, .init(status: 503))
      let clock = ManualClock(nowMs: 1_000_000)
      let cache = makeCache(server, clock: clock)
      _ = try await cache.keys(for: Self.knownKid)
      clock.advance(byMs: 120_000)
      let afterRefetch = try await cache.keys(for: "rotated-kid")
      #expect(afterRefetch.keys["rotated-kid"] == nil)
      #expect(fetches(server) == 2)
      for _ in 0..<5 {
        clock.advance(byMs: 10_000)
        _ = try await cache.keys(for: "rotated-kid")
      }
      #expect(fetches(server) == 2)
      clock.advance(byMs: 10_000)  // 60 s after the refetch
      let afterFailure = try await cache.keys(for: "rotated-kid")
      #expect(fetches(server) == 3)
      #expect(afterFailure.keys[Self.knownKid] != nil)
    }
  }

  @Test("with nothing cached, an unreachable key URL is a transient error")
  func unavailable() async throws {
    try await withServer { server in
      server.enqueue("GET", Self.path, .init(status: 500))
      let cache = makeCache(server, clock: ManualClock(nowMs: 1_000_000))
      await #expect { try await cache.keys(for: Self.knownKid) } throws: {
        ($0 as? OIDCVerificationError)?.isTransient == true
      }
    }
  }

  @Test("the push authenticator verifies a real token through the cache and refuses a missing header")
  func authenticator() async throws {
    try await withServer { server in
      server.enqueue("GET", Self.path, try keySetReply(maxAge: 3_600))
      let clock = ManualClock(nowMs: T.issuedAt * 1_000)
      let authenticator = PubSubPushAuthenticator(
        verifier: OIDCTokenVerifier(config: .init(audience: T.audience, serviceAccountEmail: T.serviceAccount)),
        keys: makeCache(server, clock: clock), now: clock.function, logger: Logger(label: "test"))
      let token = try Vectors.trimmed(T.serviceAccountToken)
      let claims = try await authenticator.authenticate(authorization: "Bearer \(token)").get()
      #expect(claims.email == T.serviceAccount)
      await #expect { try await authenticator.authenticate(authorization: nil).get() } throws: {
        ($0 as? OIDCVerificationError)?.code == .missingToken
      }
      let es256 = try Vectors.trimmed(T.es256Token)
      await #expect { try await authenticator.authenticate(authorization: "Bearer \(es256)").get() } throws: {
        ($0 as? OIDCVerificationError)?.code == .unsupportedAlgorithm
      }
      #expect(fetches(server) == 1)
    }
  }
}

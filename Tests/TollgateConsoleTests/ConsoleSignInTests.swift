import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TollgateCallers

@testable import TollgateConsole

@Suite struct ConsoleSignInTests {
  @Test("an admin key signs in: a session cookie HttpOnly, SameSite=Strict, Path=/console, not Secure on plain HTTP")
  func signIn() async throws {
    let testing = ConsoleTesting()
    try await testing.withClient { client in
      let (cookie, response) = try await ConsoleTesting.signIn(client)
      #expect(response.status == .seeOther)
      #expect(response.headers[.location] == "/console/search")
      let setCookie = try #require(response.headers[values: .setCookie].first)
      let attributes = Set(setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
      #expect(attributes.contains("HttpOnly"))
      #expect(attributes.contains("SameSite=Strict"))
      #expect(attributes.contains("Path=/console"))
      #expect(!attributes.contains("Secure"))
      let value = try #require(cookie?.split(separator: "=").last)
      #expect(value.count == 64 && value.allSatisfy(\.isHexDigit))
      let page = try await client.execute(
        uri: "/console/search", method: .get, headers: ConsoleTesting.get(cookie: cookie))
      #expect(page.status == .ok)
      #expect(ConsoleTesting.text(page).contains("<b id=\"caller\">ops</b>"))
    }
  }

  @Test("on a TLS door the session cookie is Secure")
  func secureOnTLS() async throws {
    let testing = ConsoleTesting(isTLS: true)
    try await testing.withClient { client in
      let (_, response) = try await ConsoleTesting.signIn(client)
      let setCookie = try #require(response.headers[values: .setCookie].first)
      #expect(setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.contains("Secure"))
    }
  }

  @Test(
    "a wrong key is refused 401 with no session, and costs the source one failed authentication of the gate every door shares"
  )
  func wrongKey() async throws {
    let testing = ConsoleTesting(failedAuthenticationBurst: 2)
    try await testing.withClient { client in
      for _ in 0..<2 {
        let (cookie, response) = try await ConsoleTesting.signIn(client, key: "tgk_not_a_key")
        #expect(response.status == .unauthorized)
        #expect(cookie == nil)
        #expect(ConsoleTesting.text(response).contains("That key is not a caller"))
      }
      // The budget is spent: the right key is refused before it is looked at, here and on any
      // other door asking the same gate from the same source.
      let (cookie, blocked) = try await ConsoleTesting.signIn(client)
      #expect(blocked.status == .tooManyRequests)
      #expect(blocked.headers[.retryAfter] != nil)
      #expect(cookie == nil)
      guard
        case .failure(let refusal) = testing.gate.identify(
          authorization: "Bearer \(ConsoleTesting.opsKey)", source: testing.source),
        case .sourceBlocked = refusal.kind
      else {
        Issue.record("the gate's budget for the source is not spent")
        return
      }
    }
  }

  @Test("a key without the admin scope is refused 403 with no session")
  func noAdminScope() async throws {
    let testing = ConsoleTesting()
    try await testing.withClient { client in
      let (cookie, response) = try await ConsoleTesting.signIn(client, key: ConsoleTesting.readerKey)
      #expect(response.status == .forbidden)
      #expect(cookie == nil)
      #expect(ConsoleTesting.text(response).contains("has no admin scope"))
    }
  }

  @Test("a sign-in form from another origin, or naming none, is refused 403 before the key is read")
  func signInFromAnotherOrigin() async throws {
    let testing = ConsoleTesting(failedAuthenticationBurst: 1)
    try await testing.withClient { client in
      for origin in ["http://evil.test", "null", nil] as [String?] {
        let form = ConsoleTesting.form(["key": ConsoleTesting.opsKey], origin: origin)
        let response = try await client.execute(
          uri: "/console/sign-in", method: .post, headers: form.headers, body: form.body)
        #expect(response.status == .forbidden)
        #expect(ConsoleTesting.sessionCookie(response) == nil)
      }
      // Nothing was counted: the one failed authentication the source has is still there.
      #expect(testing.gate.authenticationLimiter.mayAttempt(testing.source).allowed)
    }
  }

  @Test("a server without callers lets nobody sign in")
  func openServer() async throws {
    let gate = CallerGate(
      access: .open, authenticationLimiter: AuthenticationLimiter(perMinute: 1, burst: 5, maximumSources: 4),
      submitLimiter: SubmitRateLimiter(perSecond: 1, burst: 1))
    let console = SupportConsole(
      gate: gate, backend: ConsoleBackend(admin: { nil }, desk: { nil }), logger: .init(label: "test"))
    let form = ConsoleTesting.form(["key": "anything"])
    var headers = form.headers
    headers[.contentLength] = "\(form.body.readableBytes)"
    let request = Request(
      head: HTTPRequest(
        method: .post, scheme: "http", authority: ConsoleTesting.host, path: "/console/sign-in",
        headerFields: headers),
      body: RequestBody(buffer: form.body))
    let response = await console.respond(
      to: request, connection: ConsoleConnection(source: PeerSource(ipAddress: "192.0.2.1")!, isTLS: false))
    #expect(response.status == .forbidden)
    #expect(response.headers[.setCookie] == nil)
  }

  @Test("the key never appears in a URL, a page, a header or a log line, signed in or refused")
  func keyNeverShown() async throws {
    let testing = ConsoleTesting()
    let wrongKey = "tgk_wrong_key_that_must_not_leak_42"
    let seen = try await testing.withClient { client -> [String] in
      var seen: [String] = []
      let signInPage = try await client.execute(uri: "/console/sign-in", method: .get, headers: [:])
      let pageText = ConsoleTesting.text(signInPage)
      // The key goes in a POST body from a password field: a GET form would put it in the URL.
      #expect(pageText.contains("<form method=\"post\" action=\"/console/sign-in\""))
      #expect(pageText.contains("type=\"password\""))
      for key in [ConsoleTesting.opsKey, wrongKey, ConsoleTesting.readerKey] {
        let (cookie, response) = try await ConsoleTesting.signIn(client, key: key)
        seen.append(ConsoleTesting.text(response))
        seen += response.headers.map { "\($0.name): \($0.value)" }
        if let cookie {
          let page = try await client.execute(
            uri: "/console/search?q=demo", method: .get, headers: ConsoleTesting.get(cookie: cookie))
          seen.append(ConsoleTesting.text(page))
          seen += page.headers.map { "\($0.name): \($0.value)" }
        }
      }
      return seen
    }
    let logged = testing.log.all
    #expect(logged.contains { $0.contains("console sign-in") && $0.contains("ops") })
    #expect(logged.contains { $0.contains("console sign-in refused") })
    for text in seen + logged {
      for key in [ConsoleTesting.opsKey, wrongKey, ConsoleTesting.readerKey] {
        #expect(!text.contains(key), "\(text.prefix(200))")
      }
    }
  }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TollgateCallers

@testable import TollgateConsole

@Suite struct ConsoleSessionTests {
  @Test("every POST needs the session's CSRF token: none or a wrong one is 403 and nothing is done")
  func csrf() async throws {
    let testing = ConsoleTesting()
    try await testing.withClient { client in
      let (cookie, _) = try await ConsoleTesting.signIn(client)
      let page = try await client.execute(
        uri: "/console/search", method: .get, headers: ConsoleTesting.get(cookie: cookie))
      let token = try #require(ConsoleTesting.csrfToken(ConsoleTesting.text(page)))
      #expect(token.count == 64)
      // A wrong token: the right one with its first digit changed (a token starting with "0" once
      // made "0" + the rest the right token, and the test failed one run in 16).
      let wrong = (token.first == "0" ? "1" : "0") + token.dropFirst()
      for fields in [["user": "u1"], ["user": "u1", "csrf": wrong], ["user": "u1", "csrf": ""]] {
        let form = ConsoleTesting.form(fields, cookie: cookie)
        let refused = try await client.execute(
          uri: "/console/sign-out", method: .post, headers: form.headers, body: form.body)
        #expect(refused.status == .forbidden)
        #expect(ConsoleTesting.text(refused).contains("Nothing was done"))
      }
      // The session is still there: the refused sign-outs did nothing.
      let still = try await client.execute(
        uri: "/console/search", method: .get, headers: ConsoleTesting.get(cookie: cookie))
      #expect(still.status == .ok)
      // The right token from another origin is refused too.
      let crossSite = ConsoleTesting.form(["csrf": token], origin: "http://evil.test", cookie: cookie)
      let refused = try await client.execute(
        uri: "/console/sign-out", method: .post, headers: crossSite.headers, body: crossSite.body)
      #expect(refused.status == .forbidden)
      // The right token from this origin signs out, and the cookie is cleared.
      let form = ConsoleTesting.form(["csrf": token], cookie: cookie)
      let signedOut = try await client.execute(
        uri: "/console/sign-out", method: .post, headers: form.headers, body: form.body)
      #expect(signedOut.status == .ok)
      #expect(signedOut.headers[values: .setCookie].contains { $0.hasPrefix("tollgate_session=;") })
      let after = try await client.execute(
        uri: "/console/search", method: .get, headers: ConsoleTesting.get(cookie: cookie))
      #expect(after.status == .seeOther)
      #expect(after.headers[.location] == "/console/sign-in")
    }
  }

  @Test("a POST without a session is 403; a page without one sends the browser to sign in")
  func noSession() async throws {
    let testing = ConsoleTesting()
    try await testing.withClient { client in
      let form = ConsoleTesting.form(["user": "u1", "entitlement": "premium", "days": "3", "csrf": "x"])
      let refused = try await client.execute(
        uri: "/console/user/grant", method: .post, headers: form.headers, body: form.body)
      #expect(refused.status == .forbidden)
      for uri in ["/console", "/console/search?q=x", "/console/user?id=u1"] {
        let page = try await client.execute(uri: uri, method: .get, headers: ConsoleTesting.get(cookie: nil))
        #expect(page.status == .seeOther)
        #expect(page.headers[.location] == "/console/sign-in")
      }
      let forged = try await client.execute(
        uri: "/console/search", method: .get,
        headers: ConsoleTesting.get(cookie: "tollgate_session=" + String(repeating: "a", count: 64)))
      #expect(forged.status == .seeOther)
    }
  }

  @Test("a session ends 30 minutes after its last request, and 8 hours after sign-in however busy")
  func expiry() async throws {
    let testing = ConsoleTesting()
    try await testing.withClient { client in
      let (idle, _) = try await ConsoleTesting.signIn(client)
      testing.advance(byMs: 29 * 60_000)
      #expect(
        try await client.execute(uri: "/console/search", method: .get, headers: ConsoleTesting.get(cookie: idle))
          .status == .ok)
      testing.advance(byMs: 30 * 60_000)
      #expect(
        try await client.execute(uri: "/console/search", method: .get, headers: ConsoleTesting.get(cookie: idle))
          .status == .seeOther)

      let (busy, _) = try await ConsoleTesting.signIn(client)
      for _ in 0..<16 {
        testing.advance(byMs: 29 * 60_000)
        #expect(
          try await client.execute(uri: "/console/search", method: .get, headers: ConsoleTesting.get(cookie: busy))
            .status == .ok)
      }
      testing.advance(byMs: 29 * 60_000)  // 8 h 13 min after sign-in
      #expect(
        try await client.execute(uri: "/console/search", method: .get, headers: ConsoleTesting.get(cookie: busy))
          .status == .seeOther)
    }
  }

  @Test("a caller removed from the callers (or re-keyed) loses its sessions at its next request")
  func callerRemoved() async throws {
    let testing = ConsoleTesting()
    try await testing.withClient { client in
      let (cookie, _) = try await ConsoleTesting.signIn(client)
      testing.registry.replace(with: [
        CallerKey(name: "ops", keySha256: CallerKey.digest(of: "tgk_new_key"), scopes: .admin)
      ])
      let page = try await client.execute(
        uri: "/console/search", method: .get, headers: ConsoleTesting.get(cookie: cookie))
      #expect(page.status == .seeOther)
      #expect(page.headers[.location] == "/console/sign-in")
    }
  }

  @Test("sign-in always makes a new session id; past the cap the least recently used session goes")
  func sessionStore() {
    let sessions = ConsoleSessions(limits: .init(idleMs: 1_000, absoluteMs: 10_000, maximumSessions: 2))
    let first = sessions.create(callerName: "ops", keySha256: [1], requestedBy: nil, nowMs: 0)
    let second = sessions.create(callerName: "ops", keySha256: [1], requestedBy: nil, nowMs: 10)
    #expect(first.id != second.id && first.csrfToken != second.csrfToken && first.id != first.csrfToken)
    _ = sessions.use(first.id, nowMs: 20)
    let third = sessions.create(callerName: "ops", keySha256: [1], requestedBy: nil, nowMs: 30)
    #expect(sessions.use(second.id, nowMs: 40) == nil)
    #expect(sessions.use(first.id, nowMs: 40) != nil)
    #expect(sessions.use(third.id, nowMs: 40) != nil)
    #expect(first.accepts(csrfToken: first.csrfToken))
    #expect(!first.accepts(csrfToken: second.csrfToken))
  }

  @Test("the same-origin rule compares the Origin's (or Referer's) host and port with the request's")
  func sameOrigin() {
    func check(_ headers: HTTPFields, authority: String? = "console.test:7705") -> Bool {
      ConsoleHTTP.isSameOrigin(
        Request(
          head: HTTPRequest(
            method: .post, scheme: "http", authority: authority, path: "/console/x", headerFields: headers),
          body: RequestBody(buffer: ByteBuffer())))
    }
    #expect(check([.origin: "http://console.test:7705"]))
    #expect(check([.origin: "https://CONSOLE.test:7705"]))
    #expect(check([.referer: "http://console.test:7705/console/user?id=1"]))
    #expect(check([.origin: "http://console.test"], authority: "console.test"))
    #expect(check([.origin: "http://[::1]:7705"], authority: "[::1]:7705"))
    #expect(!check([.origin: "http://console.test:7706"]))
    #expect(!check([.origin: "http://evil.test:7705"]))
    #expect(!check([.origin: "null"]))
    #expect(!check([:]))
    #expect(!check([.origin: "http://console.test:7705.evil.test"]))
  }

  @Test("a form's return path stays in the console")
  func safeReturn() {
    #expect(SupportConsole.safeReturn("/console/user?id=a") == "/console/user?id=a")
    for evil in ["//evil.test/console", "https://evil.test", "/console/../x\\y", "/console//evil", nil, "/other"] {
      #expect(SupportConsole.safeReturn(evil) == "/console/search")
    }
  }

  @Test("HTML.escape escapes markup and quotes and drops control characters")
  func escape() {
    #expect(
      HTML.escape("<a href=\"x\" onclick='y'>&</a>")
        == "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
    #expect(HTML.escape("a\u{0}b\u{1B}c\u{7F}d\u{85}e\tf\ng") == "abcde\tf\ng")
  }
}

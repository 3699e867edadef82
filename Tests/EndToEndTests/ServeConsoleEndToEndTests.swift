import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TollgateTesting

/// `tollgate serve` mounts the support console on its HTTP door (issue 29): `/console` answers
/// without a bearer key and signs an admin caller in, while `/v1` keeps the door's key check;
/// `--no-console` leaves `/console` unanswered.
@Suite struct ServeConsoleEndToEndTests {
  @Test("serve's HTTP door serves /console outside the bearer-key check; --no-console turns it off")
  func consoleOnServe() async throws {
    let dir = try TemporaryDirectory(prefix: "tollgate-serve-console")
    defer { dir.remove() }
    let service: [String: Any] = [
      "listen": "127.0.0.1:0", "database": dir.file("t.sqlite"), "callers": HTTPDoorEndToEndTests.callers(),
    ]
    let serve = try await HTTPDoorEndToEndTests.serve(service, in: dir, extra: ["--http-listen", "127.0.0.1:0"])
    defer { serve.process.terminate() }
    let address = try #require(HTTPDoorEndToEndTests.door("http", in: serve.line), "no http: in \(serve.line)")

    let signInPage = try await Self.send("GET", "http://\(address)/console/sign-in")
    #expect(signInPage.status == 200)
    #expect(signInPage.body.contains("<form method=\"post\" action=\"/console/sign-in\""))
    let api = try await Self.send("GET", "http://\(address)/v1/users/u1/entitlements/premium")
    #expect(api.status == 401)

    let signedIn = try await Self.send(
      "POST", "http://\(address)/console/sign-in", origin: "http://\(address)",
      form: "key=\(HTTPDoorEndToEndTests.opsKey)")
    #expect(signedIn.status == 303)
    let cookie = try #require(signedIn.setCookie?.split(separator: ";").first.map(String.init))
    #expect(cookie.hasPrefix("tollgate_session="))
    let search = try await Self.send("GET", "http://\(address)/console/search", cookie: cookie)
    #expect(search.status == 200)
    #expect(search.body.contains("<b id=\"caller\">ops</b>"))
    // A reader's key is a caller's, but not an admin's.
    let reader = try await Self.send(
      "POST", "http://\(address)/console/sign-in", origin: "http://\(address)",
      form: "key=\(HTTPDoorEndToEndTests.readerKey)")
    #expect(reader.status == 403)

    let off = try await HTTPDoorEndToEndTests.serve(
      service, in: dir, extra: ["--http-listen", "127.0.0.1:0", "--no-console"])
    defer { off.process.terminate() }
    let offAddress = try #require(HTTPDoorEndToEndTests.door("http", in: off.line))
    #expect(try await Self.send("GET", "http://\(offAddress)/console/sign-in").status == 404)
  }

  struct Answer {
    var status: Int
    var setCookie: String?
    var body: String
  }

  static func send(
    _ method: String, _ url: String, origin: String? = nil, cookie: String? = nil, form: String? = nil
  ) async throws -> Answer {
    var request = HTTPClientRequest(url: url)
    request.method = .init(rawValue: method)
    if let origin { request.headers.add(name: "origin", value: origin) }
    if let cookie { request.headers.add(name: "cookie", value: cookie) }
    if let form {
      request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
      request.body = .bytes(ByteBuffer(string: form))
    }
    // Redirects not followed: a sign-in's 303 carries the cookie the test reads.
    var configuration = HTTPClient.Configuration()
    configuration.redirectConfiguration = .disallow
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    let answer: Answer
    do {
      let response = try await client.execute(request, timeout: .seconds(10))
      let body = try await response.body.collect(upTo: 1 << 20)
      answer = Answer(
        status: Int(response.status.code), setCookie: response.headers.first(name: "set-cookie"),
        body: String(buffer: body))
    } catch {
      try? await client.shutdown()
      throw error
    }
    try await client.shutdown()
    return answer
  }
}

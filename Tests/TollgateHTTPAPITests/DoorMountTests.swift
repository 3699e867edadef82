import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TollgateCallers
import TollgateHTTPAPI

/// A mount (the support console's seam, issue 29): its paths are answered by the mount, outside
/// the bearer-key check, while every other route keeps it.
@Suite struct DoorMountTests {
  static let mount = DoorMount(prefix: "/console") { request, context in
    Response(
      status: .ok,
      body: .init(byteBuffer: ByteBuffer(string: "\(request.method) \(request.uri.path) tls=\(context.isTLS)")))
  }

  @Test("the mount answers its prefix and everything below it, GET and POST, with no caller key")
  func mountAnswersWithoutKey() async throws {
    var config = HTTPDoor.Config(host: "127.0.0.1", port: 0)
    config.mounts = [Self.mount]
    try await DoorTesting.withRouter(config: config) { client in
      for (method, path) in [(HTTPRequest.Method.get, "/console"), (.get, "/console/user"), (.post, "/console/a/b")] {
        let response = try await client.execute(uri: path, method: method, headers: [:])
        #expect(response.status == .ok)
        #expect(String(buffer: response.body) == "\(method) \(path) tls=false")
      }
      // Not the mount's: the door's own routes still want a key, and a look-alike path is not it.
      let api = try await client.execute(uri: "/v1/users/u1/entitlements/premium", method: .get, headers: [:])
      #expect(api.status == .unauthorized)
      let lookalike = try await client.execute(uri: "/consolex", method: .get, headers: [:])
      #expect(lookalike.status == .notFound)
    }
  }

  @Test("behind a TLS-terminating proxy (X-Forwarded-Proto: https) the mount is told the browser came over TLS")
  func forwardedOverTLS() async throws {
    var config = HTTPDoor.Config(host: "127.0.0.1", port: 0)
    config.mounts = [Self.mount]
    try await DoorTesting.withRouter(config: config) { client in
      for (proto, tls) in [("https", true), ("HTTPS", true), ("http", false)] {
        let response = try await client.execute(
          uri: "/console", method: .get, headers: [HTTPField.Name("X-Forwarded-Proto")!: proto])
        #expect(String(buffer: response.body) == "GET /console tls=\(tls)", "X-Forwarded-Proto: \(proto)")
      }
    }
  }

  @Test("without a mount, /console is not found")
  func noMount() async throws {
    try await DoorTesting.withRouter { client in
      let response = try await client.execute(uri: "/console/sign-in", method: .get, headers: [:])
      #expect(response.status == .notFound)
    }
  }
}

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import Testing
import TollgateTesting

/// The HTTP/JSON door of `tollgate serve` (a process) over TLS and mutual TLS (`service.http.tls`,
/// issue 28), with the PKI of clients/test-certs: HTTPS answered, plain HTTP not, the fast port's
/// TLS 1.2 suites only, a connection whose handshake never finishes cut at the first head's
/// deadline, a client without a certificate from the configured CA refused, and every unusable
/// file an error naming its key.
@Suite("tollgate serve: the HTTP door over TLS and mutual TLS, as processes", .serialized)
struct HTTPDoorTLSEndToEndTests {
  static let readerKey = HTTPDoorEndToEndTests.readerKey

  /// Serve with an HTTP door configured by `http` (its `listen` added); the process and the door's address.
  static func serve(_ http: [String: Any], in dir: TemporaryDirectory) async throws
    -> (process: ChildProcess, address: String)
  {
    var door = http
    door["listen"] = "127.0.0.1:0"
    let serve = try await HTTPDoorEndToEndTests.serve(
      [
        "listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"), "callers": HTTPDoorEndToEndTests.callers(),
        "http": door,
      ], in: dir)
    return (serve.process, try #require(HTTPDoorEndToEndTests.door("http", in: serve.line), "\(serve.line)"))
  }

  /// GET `path` on `address` with the reader's key: over HTTPS trusting the test CA (with the
  /// PKI's `certificate` as the client's, and over TLS 1.2 with only `ciphers` when given), or
  /// in plain HTTP with `plain`. The status, or why there was none. A connection whose handshake
  /// fails is tried again until `timeout`, then the handshake's error is thrown (AsyncHTTPClient's
  /// pool): refusals pass a short one.
  static func get(
    _ address: String, _ path: String, pki: TemporaryDirectory, certificate: String? = nil,
    ciphers: [NIOTLSCipher]? = nil, plain: Bool = false, timeout: TimeAmount = .seconds(5)
  ) async -> Result<Int, any Error> {
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.trustRoots = .file(pki.file("ca.pem"))
    if let certificate {
      do {
        tls.certificateChain = try NIOSSLCertificate.fromPEMFile(pki.file("\(certificate).pem")).map {
          .certificate($0)
        }
        tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: pki.file("\(certificate).key"), format: .pem))
      } catch {
        return .failure(error)
      }
    }
    if let ciphers {
      tls.maximumTLSVersion = .tlsv12
      tls.cipherSuiteValues = ciphers
    }
    let client = HTTPClient(configuration: .init(tlsConfiguration: tls))
    var request = HTTPClientRequest(url: "\(plain ? "http" : "https")://\(address)\(path)")
    request.headers.add(name: "authorization", value: "Bearer \(readerKey)")
    let result: Result<Int, any Error>
    do {
      let response = try await client.execute(request, timeout: timeout)
      _ = try await response.body.collect(upTo: 1 << 16)
      result = .success(Int(response.status.code))
    } catch {
      result = .failure(error)
    }
    try? await client.shutdown()
    return result
  }

  static func status(_ result: Result<Int, any Error>) -> Int? { try? result.get() }

  /// Whether the call failed in TLS (a handshake refused, an alert), not by timing out.
  static func refusedByTLS(_ result: Result<Int, any Error>) -> Bool {
    guard case .failure(let error) = result else { return false }
    return error is NIOSSLError || error is BoringSSLError
  }

  @Test(
    "HTTPS answered, plain HTTP not; the fast port's TLS 1.2 suites; a silent connection cut at the first head's deadline"
  )
  func tls() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    try await ServeAccessEndToEndTests.makeCertificates(in: dir.path)
    let (process, address) = try await Self.serve(
      [
        "tls": ["certificateFile": dir.file("server.pem"), "privateKeyFile": dir.file("server.key")],
        "headerTimeoutMs": 300, "idleTimeoutMs": 60_000, "unprovenTimeoutMs": 30_000,
      ], in: dir)
    defer { process.terminate() }
    let path = "/v1/users/nobody/entitlements/premium"

    #expect(Self.status(await Self.get(address, path, pki: dir)) == 200)
    #expect(Self.status(await Self.get(address, "/healthz", pki: dir)) == 200)
    let plain = await Self.get(address, "/healthz", pki: dir, plain: true)
    #expect(Self.status(plain) == nil, "plain HTTP to the TLS port was answered: \(plain)")

    for cipher in [
      NIOTLSCipher.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    ] {
      #expect(Self.status(await Self.get(address, path, pki: dir, ciphers: [cipher])) == 200, "\(cipher)")
    }
    for cipher in [NIOTLSCipher.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, .TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA] {
      let refused = await Self.get(address, path, pki: dir, ciphers: [cipher], timeout: .seconds(1))
      #expect(Self.refusedByTLS(refused), "\(cipher): \(refused)")
    }

    // A TCP connection that never starts its handshake is closed once its first head is
    // overdue (300 ms), long before the unproven (30 s) and idle (60 s) timeouts: it cannot hold
    // a slot.
    let port = try #require(Int(address.split(separator: ":").last ?? ""))
    let silent = SocketFlood()
    defer { silent.closeAll() }
    try silent.connect(count: 1, port: port)
    #expect(await silent.waitUntilClosedByPeer(atLeast: 1, timeout: .seconds(5)))
  }

  @Test("mutual TLS: a client certificate from the configured CA is answered; none, or another CA's, is refused")
  func mutualTLS() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    try await ServeAccessEndToEndTests.makeCertificates(in: dir.path)
    let (process, address) = try await Self.serve(
      [
        "tls": [
          "certificateFile": dir.file("server.pem"), "privateKeyFile": dir.file("server.key"),
          "clientCAFile": dir.file("ca.pem"),
        ]
      ], in: dir)
    defer { process.terminate() }
    let path = "/v1/users/nobody/entitlements/premium"
    #expect(Self.status(await Self.get(address, path, pki: dir, certificate: "client")) == 200)
    for certificate in [nil, "other-client"] {
      let refused = await Self.get(address, path, pki: dir, certificate: certificate, timeout: .seconds(1))
      #expect(Self.refusedByTLS(refused), "certificate \(certificate ?? "none"): \(refused)")
    }
  }

  @Test("service.http.tls and service.grpc.tls: every unusable file or value stops serve, naming its key")
  func settings() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    try await ServeAccessEndToEndTests.makeCertificates(in: dir.path)
    let good = ["certificateFile": dir.file("server.pem"), "privateKeyFile": dir.file("server.key")]
    func tls(_ changes: [String: String]) -> [String: String] { good.merging(changes) { $1 } }
    let cases: [(String, [String: Any], String)] = [
      (
        "http", tls(["certificateFile": dir.file("missing.pem")]),
        "service.http.tls.certificateFile \(dir.file("missing.pem")): cannot be read"
      ),
      ("http", tls(["certificateFile": ""]), "service.http.tls.certificateFile must name a PEM file"),
      (
        "http", tls(["privateKeyFile": dir.file("client.key")]),
        "service.http.tls.privateKeyFile \(dir.file("client.key")): cannot be used"
      ),
      (
        "http", tls(["clientCAFile": dir.file("missing-ca.pem")]),
        "service.http.tls.clientCAFile \(dir.file("missing-ca.pem"))"
      ),
      ("http", tls(["certFile": "x.pem"]), "service.http.tls.certFile is not a known key"),
      (
        "grpc", tls(["privateKeyFile": dir.file("server.pem")]),
        "service.grpc.tls.privateKeyFile \(dir.file("server.pem")): holds no"
      ),
    ]
    for (door, tls, expected) in cases {
      let config = dir.file("bad.json")
      let service: [String: Any] = [
        "database": dir.file("tollgate.sqlite"), door: ["listen": "127.0.0.1:0", "tls": tls],
      ]
      try JSONSerialization.data(withJSONObject: ["service": service]).write(to: URL(fileURLWithPath: config))
      let result = try await ChildProcess.runDetached(["serve", "--config", config, "--create"])
      #expect(result.status != 0, "\(door) \(tls)")
      #expect(result.stderr.contains(expected), "\(result.stderr)")
      #expect(!result.stdout.contains("listening on"))
    }
  }
}

import Foundation
import NIOSSL
import Testing
import TollgateClient
import TollgateTesting

/// Issue 25: `serve`'s TLS listener offers TLS 1.2 only with forward secrecy (ECDHE) and AEAD
/// ciphers; clients (NIOSSL's BoringSSL) that offer nothing else are refused.
@Suite("tollgate serve: TLS 1.2 with ECDHE and AEAD only", .serialized)
struct TLSCipherEndToEndTests {
  static let key = ServeAccessEndToEndTests.appKey

  /// A serve process with a TLS listener on `certificate`/`privateKey`; its TLS address.
  static func serve(
    in dir: TemporaryDirectory, certificate: String, privateKey: String
  ) async throws -> (ServeAccessEndToEndTests.Running, String) {
    let server = try await ServeAccessEndToEndTests.serve(
      [
        "listen": "127.0.0.1:0", "database": dir.file("tollgate-\(UUID().uuidString.prefix(6)).sqlite"),
        "callers": [["name": "app", "keySha256": ServeAccessEndToEndTests.hex(key), "scopes": ["read"]]],
        "tls": ["listen": "127.0.0.1:0", "certificateFile": certificate, "privateKeyFile": privateKey],
      ], in: dir)
    return (server, try #require(server.tls))
  }

  /// Whether a client offering only `ciphers` over TLS 1.2 (nil: its defaults, TLS 1.3 allowed) is answered.
  static func answered(_ address: String, trusting ca: String, ciphers: [NIOTLSCipher]?) async throws -> Bool {
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.trustRoots = .file(ca)
    if let ciphers {
      tls.maximumTLSVersion = .tlsv12
      tls.cipherSuiteValues = ciphers
    }
    var config = TollgateClient.Config.defaults
    config.connectTimeout = .seconds(3)
    config.callTimeout = .seconds(3)
    config.credentials = .init(caller: "app", key: key)
    config.tls = tls
    let host = String(address[..<address.lastIndex(of: ":")!])
    let port = Int(address[address.index(after: address.lastIndex(of: ":")!)...])!
    let client = try TollgateClient(endpoint: .tcp(host: host, port: port), config: config)
    let answered: Bool
    do {
      _ = try await client.health()
      answered = true
    } catch {
      answered = false
    }
    await client.close()
    return answered
  }

  @Test("an ECDSA certificate: ECDHE-ECDSA with AES-GCM or ChaCha20 and TLS 1.3 are answered, CBC-SHA1 is refused")
  func ecdsaCertificate() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    try await ServeAccessEndToEndTests.makeCertificates(in: dir.path)
    let (server, tls) = try await Self.serve(
      in: dir, certificate: dir.file("server.pem"), privateKey: dir.file("server.key"))
    defer { server.process.terminate() }
    let ca = dir.file("ca.pem")
    #expect(try await Self.answered(tls, trusting: ca, ciphers: nil), "TLS 1.3")
    for cipher in [
      NIOTLSCipher.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    ] {
      #expect(try await Self.answered(tls, trusting: ca, ciphers: [cipher]), "\(cipher)")
    }
    for cipher in [NIOTLSCipher.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, .TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA] {
      #expect(!(try await Self.answered(tls, trusting: ca, ciphers: [cipher])), "\(cipher) was accepted")
    }
  }

  @Test(
    "an RSA certificate: ECDHE-RSA with AES-GCM is answered; RSA key exchange (no forward secrecy) and CBC are refused")
  func rsaCertificate() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let status = try await ChildProcess.runTool(
      "/usr/bin/env",
      [
        "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir.file("rsa.key"), "-out",
        dir.file("rsa.pem"), "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1",
      ])
    try #require(status == 0, "openssl could not make an RSA certificate")
    let (server, tls) = try await Self.serve(in: dir, certificate: dir.file("rsa.pem"), privateKey: dir.file("rsa.key"))
    defer { server.process.terminate() }
    let ca = dir.file("rsa.pem")
    #expect(try await Self.answered(tls, trusting: ca, ciphers: [.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]))
    #expect(try await Self.answered(tls, trusting: ca, ciphers: [.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384]))
    let refused: [NIOTLSCipher] = [
      .TLS_RSA_WITH_AES_128_GCM_SHA256, .TLS_RSA_WITH_AES_256_GCM_SHA384, .TLS_RSA_WITH_AES_128_CBC_SHA,
      .TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
    ]
    for cipher in refused {
      #expect(!(try await Self.answered(tls, trusting: ca, ciphers: [cipher])), "\(cipher) was accepted")
    }
  }
}

import Foundation
import NIOSSL
import Testing
import TollgateClient
import TollgateCore
import TollgateCrypto
import TollgateSQLite
import TollgateStorage
import TollgateTesting

/// `tollgate serve` as a process with callers, a Unix socket and TLS, called by the Swift client
/// and `tollgate query` over real sockets.
@Suite("tollgate serve: callers, TLS and Unix sockets, as processes", .serialized)
struct ServeAccessEndToEndTests {
  static let readerKey = "tgk_reader_0123456789abcdef"
  static let appKey = "tgk_app_fedcba9876543210"

  /// A throwaway PKI from clients/test-certs (openssl), written into `dir`.
  static func makeCertificates(in dir: String) async throws {
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    let status = try await ChildProcess.runTool(root.appendingPathComponent("clients/test-certs").path, [dir])
    try #require(status == 0, "clients/test-certs failed")
  }

  static func hex(_ key: String) -> String { SHA256.hash(key).hexString }

  struct Running {
    let process: ChildProcess
    let tcp: String
    let tls: String?
    let unix: String?
  }

  /// Starts serve with `service` as its config section; reads the listeners from its first line.
  static func serve(_ service: [String: Any], in dir: TemporaryDirectory, extra: [String] = []) async throws -> Running
  {
    let config = dir.file("config-\(UUID().uuidString.prefix(8)).json")
    try JSONSerialization.data(withJSONObject: ["service": service]).write(to: URL(fileURLWithPath: config))
    let process = try ChildProcess(["serve", "--config", config, "--create", "--log-level", "warning"] + extra)
    guard let line = await process.waitForLine(containing: "listening on") else {
      let ended = process.finish()
      Issue.record("serve did not start: \(ended.stderr)")
      throw CancellationError()
    }
    let words = line.split(separator: " ").map { $0.trimmingCharacters(in: [","]) }
    return Running(
      process: process, tcp: try #require(words.first { $0.hasPrefix("127.0.0.1:") }),
      tls: words.first { $0.hasPrefix("tls:") }.map { String($0.dropFirst(4)) },
      unix: words.first { $0.hasPrefix("unix:") }.map { String($0.dropFirst(5)) })
  }

  static func client(
    _ address: String, caller: String? = nil, key: String? = nil, tlsCA: String? = nil,
    clientCertificate: (certificate: String, key: String)? = nil
  ) throws -> TollgateClient {
    var config = TollgateClient.Config.defaults
    config.connectTimeout = .seconds(3)
    config.callTimeout = .seconds(3)
    if let caller, let key { config.credentials = .init(caller: caller, key: key) }
    if let tlsCA {
      var tls = TLSConfiguration.makeClientConfiguration()
      tls.trustRoots = .file(tlsCA)
      if let clientCertificate {
        tls.certificateChain = try NIOSSLCertificate.fromPEMFile(clientCertificate.certificate).map { .certificate($0) }
        tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: clientCertificate.key, format: .pem))
      }
      config.tls = tls
    }
    if address.hasPrefix("/") { return try TollgateClient(endpoint: .unixSocket(path: address), config: config) }
    let host = String(address[..<address.lastIndex(of: ":")!])
    let port = Int(address[address.index(after: address.lastIndex(of: ":")!)...])!
    return try TollgateClient(endpoint: .tcp(host: host, port: port), config: config)
  }

  @Test("callers over TCP, TLS and a Unix socket: keys, scopes, a wrong key, an untrusted server certificate")
  func callers() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    try await Self.makeCertificates(in: dir.path)
    let database = dir.file("tollgate.sqlite")
    let storage = try SQLiteEntitlementStorage(path: database, nowMs: 1, create: true)
    try await storage.replaceEntitlements(
      userId: "alice", with: [.sample(userId: "alice", expiresAtMs: SystemClock.nowMs() + 3_600_000)], reason: "seed",
      nowMs: 1)
    let socket = dir.file("tollgate.sock")
    let server = try await Self.serve(
      [
        "listen": "127.0.0.1:0", "database": database, "unixSocket": socket,
        "callers": [
          ["name": "reader", "keySha256": Self.hex(Self.readerKey), "scopes": ["read"]],
          ["name": "app", "keySha256": Self.hex(Self.appKey), "scopes": ["read", "submit"]],
        ],
        "tls": [
          "listen": "127.0.0.1:0", "certificateFile": dir.file("server.pem"),
          "privateKeyFile": dir.file("server.key"),
        ],
      ], in: dir)
    defer { server.process.terminate() }
    let tls = try #require(server.tls)
    #expect(server.unix == socket)

    for address in [server.tcp, socket] {
      let anonymous = try Self.client(address)
      await #expect(throws: TollgateClientError.self) {
        _ = try await anonymous.isSubscriber(userId: "alice", entitlement: "premium")
      }
      await anonymous.close()
      let reader = try Self.client(address, caller: "reader", key: Self.readerKey)
      #expect(try await reader.isSubscriber(userId: "alice", entitlement: "premium").active)
      var submission = Tollgate_V1_SubmitPurchaseRequest()
      submission.userID = "alice"
      submission.store = .appStore
      submission.receipt = "2000000001"
      do {
        _ = try await reader.submitPurchase(submission)
        Issue.record("a reader submitted")
      } catch let error as TollgateClientError {
        #expect(error.code == .permissionDenied)
      }
      await reader.close()
    }

    let wrong = try Self.client(server.tcp, caller: "reader", key: "not-the-key")
    do {
      _ = try await wrong.health()
      Issue.record("a wrong key was let in")
    } catch let error as TollgateClientError {
      #expect(error.code == .unauthenticated)
      #expect(!"\(error)".contains("not-the-key"))
    }
    await wrong.close()

    let app = try Self.client(tls, caller: "app", key: Self.appKey, tlsCA: dir.file("ca.pem"))
    #expect(try await app.isSubscriber(userId: "alice", entitlement: "premium").active)
    var submission = Tollgate_V1_SubmitPurchaseRequest()
    submission.userID = "bob"
    submission.store = .appStore
    submission.receipt = "2000000002"
    let submitted = try await app.submitPurchase(submission)
    #expect(submitted.status == .pending)
    let status = try await app.getSubmission(submissionId: submitted.submissionID)
    #expect(status.status == .pending)
    #expect(status.userID == "bob")
    await app.close()

    let untrusting = try Self.client(tls, caller: "app", key: Self.appKey, tlsCA: dir.file("other-ca.pem"))
    await #expect(throws: (any Error).self) { _ = try await untrusting.health() }
    await untrusting.close()
    let plaintextToTLS = try Self.client(tls, caller: "app", key: Self.appKey)
    await #expect(throws: (any Error).self) { _ = try await plaintextToTLS.health() }
    await plaintextToTLS.close()

    let query = try await ChildProcess.runDetached(
      ["query", "is-subscriber", "alice", "premium", "--server", "unix:" + socket, "--caller", "reader", "--json"],
      environment: ["TOLLGATE_KEY": Self.readerKey])
    #expect(query.status == 0, "\(query.stderr)")
  }

  @Test("mutual TLS: a client without a certificate from the configured CA is refused")
  func mutualTLS() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    try await Self.makeCertificates(in: dir.path)
    let server = try await Self.serve(
      [
        "listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"),
        "tls": [
          "listen": "127.0.0.1:0", "certificateFile": dir.file("server.pem"),
          "privateKeyFile": dir.file("server.key"), "clientCAFile": dir.file("ca.pem"),
        ],
      ], in: dir)
    defer { server.process.terminate() }
    let tls = try #require(server.tls)
    let withCertificate = try Self.client(
      tls, tlsCA: dir.file("ca.pem"), clientCertificate: (dir.file("client.pem"), dir.file("client.key")))
    #expect(try await withCertificate.health().status != .unspecified)
    await withCertificate.close()
    for certificate in [nil, (dir.file("other-client.pem"), dir.file("other-client.key"))] {
      let refused = try Self.client(tls, tlsCA: dir.file("ca.pem"), clientCertificate: certificate)
      await #expect(throws: (any Error).self) { _ = try await refused.health() }
      await refused.close()
    }
  }

  @Test("protected mode: serve refuses a non-loopback listener without callers unless --insecure-no-auth")
  func protectedMode() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let database = dir.file("tollgate.sqlite")
    let refused = try await ChildProcess.runDetached([
      "serve", "--listen", "0.0.0.0:0", "--database", database, "--create",
    ])
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("refusing to listen on 0.0.0.0"))
    #expect(refused.stderr.contains("--insecure-no-auth"))

    let allowed = try ChildProcess(
      ["serve", "--listen", "0.0.0.0:0", "--database", database, "--create", "--insecure-no-auth"])
    defer { allowed.terminate() }
    #expect(await allowed.waitForLine(containing: "listening on") != nil)
  }

  @Test("serve's config: an unknown key, an out-of-range port and a bad caller entry are errors naming the key")
  func strictConfig() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let cases: [([String: Any], String)] = [
      (["listne": "127.0.0.1:0"], "service.listne is not a known key"),
      (["listen": "127.0.0.1:99999"], "service.listen must be HOST:PORT"),
      (["callers": [["name": "web", "keySha256": "abc", "scopes": ["read"]]]], "service.callers[0].keySha256"),
      (["callers": [["name": "web", "keySha256": Self.hex("k"), "scopes": ["write"]]]], "unknown scope \"write\""),
      (
        ["tls": ["listen": "127.0.0.1:0", "certificateFile": "/nonexistent.pem", "privateKeyFile": "/x"]], "service.tls"
      ),
    ]
    for (service, expected) in cases {
      let config = dir.file("bad.json")
      var section = service
      section["database"] = dir.file("tollgate.sqlite")
      try JSONSerialization.data(withJSONObject: ["service": section]).write(to: URL(fileURLWithPath: config))
      let result = try await ChildProcess.runDetached(["serve", "--config", config, "--create"])
      #expect(result.status != 0, "\(service)")
      #expect(result.stderr.contains(expected), "\(result.stderr)")
    }
  }

  @Test("a callers file is reloaded: a new key works without a restart, a removed one stops working")
  func callersFileReload() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let file = dir.file("callers.json")
    func write(_ callers: [[String: Any]]) throws {
      let temporary = file + ".new"
      try JSONSerialization.data(withJSONObject: callers).write(to: URL(fileURLWithPath: temporary))
      _ = rename(temporary, file)
    }
    try write([["name": "reader", "keySha256": Self.hex(Self.readerKey), "scopes": ["read"]]])
    let server = try await Self.serve(
      ["listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"), "callersFile": file], in: dir)
    defer { server.process.terminate() }
    let reader = try Self.client(server.tcp, caller: "reader", key: Self.readerKey)
    _ = try await reader.health()
    try write([["name": "app", "keySha256": Self.hex(Self.appKey), "scopes": ["read"]]])
    let app = try Self.client(server.tcp, caller: "app", key: Self.appKey)
    let admitted = await eventually(timeout: .seconds(10)) { (try? await app.health()) != nil }
    #expect(admitted != nil, "the new caller is admitted after the reload")
    do {
      _ = try await reader.health()
      Issue.record("a removed caller kept reading")
    } catch let error as TollgateClientError {
      #expect(error.code == .unauthenticated)
    }
    await reader.close()
    await app.close()
  }
}

import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Testing
import TollgateContract
import TollgateHTTPListener
import TollgateTesting

@testable import TollgateGRPC

@Suite("gRPC door: TLS and mutual TLS, live on loopback")
struct GRPCDoorTLSTests {
  /// A throwaway PKI from clients/test-certs: ca.pem, server.pem/.key (127.0.0.1), client.pem/.key,
  /// other-client.pem/.key (from a CA the door does not trust).
  static func pki() async throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory(prefix: "tollgate-grpc-tls")
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    let status = try await ChildProcess.runTool(
      root.appendingPathComponent("clients/test-certs").path, [directory.path])
    try #require(status == 0, "clients/test-certs failed")
    return directory
  }

  static func tls(_ pki: TemporaryDirectory, mutual: Bool) -> (inout GRPCDoor.Config) -> Void {
    { config in
      config.tls = DoorTLS(
        certificateFile: pki.file("server.pem"), privateKeyFile: pki.file("server.key"),
        clientCAFile: mutual ? pki.file("ca.pem") : nil)
      config.handshakeTimeout = .milliseconds(500)
    }
  }

  /// A client trusting the test CA, presenting `certificate` (a name in the PKI) when given.
  static func client(_ pki: TemporaryDirectory, certificate: String? = nil)
    -> HTTP2ClientTransport.Posix
    .TransportSecurity
  {
    .tls { tls in
      tls.trustRoots = .certificates([.file(path: pki.file("ca.pem"), format: .pem)])
      tls.serverCertificateVerification = .noHostnameVerification
      if let certificate {
        tls.certificateChain = [.file(path: pki.file("\(certificate).pem"), format: .pem)]
        tls.privateKey = .file(path: pki.file("\(certificate).key"), format: .pem)
      }
    }
  }

  static func read(_ client: LiveEntitlementsClient) async throws -> Bool {
    var request = Tollgate_V1_IsSubscriberRequest()
    request.userID = "yes"
    request.entitlement = "pro"
    return try await client.isSubscriber(request, metadata: TestCallers.bearer(TestCallers.readerKey)).active
  }

  @Test("TLS: a client trusting the CA is answered; a plaintext client is not")
  func tlsListener() async throws {
    let pki = try await Self.pki()
    defer { pki.remove() }
    try await withLiveDoor(configure: Self.tls(pki, mutual: false)) { _, port in
      let answered = try await withLiveClient(port: port, security: Self.client(pki)) { client, _ in
        try await Self.read(client)
      }
      #expect(answered)
      let plaintext = await rpcError {
        try await withLiveClient(port: port) { client, _ in try await Self.read(client) }
      }
      #expect(plaintext?.code == .unavailable)
    }
  }

  @Test("mutual TLS: a client certificate from the CA is answered; none, or one from another CA, is refused")
  func mutualTLS() async throws {
    let pki = try await Self.pki()
    defer { pki.remove() }
    try await withLiveDoor(configure: Self.tls(pki, mutual: true)) { _, port in
      let answered = try await withLiveClient(port: port, security: Self.client(pki, certificate: "client")) {
        client, _ in try await Self.read(client)
      }
      #expect(answered)
      for certificate in [nil, "other-client"] {
        let refused = await rpcError {
          try await withLiveClient(port: port, security: Self.client(pki, certificate: certificate)) { client, _ in
            try await Self.read(client)
          }
        }
        #expect(refused?.code == .unavailable, "certificate \(certificate ?? "none")")
      }
    }
  }

  @Test("a TLS handshake left half done is cut at handshakeTimeout (the deadline counts decrypted bytes)")
  func stalledHandshake() async throws {
    let pki = try await Self.pki()
    defer { pki.remove() }
    try await withLiveDoor(configure: Self.tls(pki, mutual: false)) { door, port in
      // A TLS handshake record announcing 500 bytes, 40 of them sent: more raw bytes than a preface.
      let stalled = SocketFlood()
      try stalled.connect(
        count: 1, port: port, sending: [0x16, 0x03, 0x01, 0x01, 0xf4] + Array(repeating: 1, count: 40))
      #expect(await stalled.waitUntilClosedByPeer(atLeast: 1, timeout: .seconds(5)))
      #expect(door.connectionLimits.prefaceTimeouts == 1)
      stalled.closeAll()
    }
  }

  @Test("a missing certificate file fails when the door is made, naming the file")
  func missingFile() throws {
    var config = GRPCDoor.Config(address: .init(host: "127.0.0.1", port: 0))
    config.tls = DoorTLS(certificateFile: "/nonexistent/server.pem", privateKeyFile: "/nonexistent/server.key")
    #expect {
      _ = try GRPCDoor(
        config: config, handler: FakeEntitlementsHandler(), gate: TestCallers.gate(), logger: .init(label: "test"))
    } throws: { error in
      "\(error)".hasPrefix("service.grpc.tls.certificateFile /nonexistent/server.pem")
    }
  }
}

import AsyncHTTPClient
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import NIOCore
import Testing
import TollgateContract
import TollgateGRPC
import TollgateTesting

/// Issue 28, tried as a stranger would against `tollgate serve` as a process: connections that
/// prove nothing must not hold the gRPC or HTTP door's slots for long. Each door runs with a cap
/// of 8 connections and a 1 s handshake/header deadline; 8 strangers take every slot, then a
/// caller with a good key must be answered within seconds, as on the fast port
/// (`ServeSlotsEndToEndTests`), not after the door's idle timeout (300 s on gRPC, 60 s on HTTP).
@Suite("tollgate serve's doors: strangers holding every connection slot lock no caller out", .serialized)
struct DoorAttackSlotsEndToEndTests {
  static let readerKey = "tgk_slots_reader_0123456789abcdef"
  /// The HTTP/2 client connection preface and an empty SETTINGS frame: all a stranger needs to send.
  static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
  static let slots = 8

  static func serve(in dir: TemporaryDirectory) async throws -> DoorAttackServe {
    try await DoorAttackServe.start(
      [
        "listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"),
        "callers": [["name": "reader", "keySha256": ServeAccessEndToEndTests.hex(readerKey), "scopes": ["read"]]],
        "grpc": ["listen": "127.0.0.1:0", "maxConnections": slots, "handshakeTimeoutMs": 1_000],
        "http": ["listen": "127.0.0.1:0", "maxConnections": slots, "headerTimeoutMs": 1_000],
      ], in: dir)
  }

  /// One IsSubscriber over gRPC with the reader's key on a fresh connection, given at most a second.
  static func grpcAnswered(port: Int) async -> Bool {
    do {
      let transport = try HTTP2ClientTransport.Posix(
        target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
      return try await withGRPCClient(transport: transport) { client in
        var options = CallOptions.defaults
        options.timeout = .seconds(1)
        var request = Tollgate_V1_IsSubscriberRequest()
        request.userID = "u1"
        request.entitlement = "premium"
        _ = try await Tollgate_V1_Entitlements.Client(wrapping: client).isSubscriber(
          request, metadata: ["authorization": "Bearer \(readerKey)"], options: options)
        return true
      }
    } catch {
      return false
    }
  }

  /// One keyed GET over HTTP on a connection of its own, given at most a second.
  static func httpAnswered(port: Int) async -> Bool {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/users/u1/entitlements/premium")
    request.headers.add(name: "authorization", value: "Bearer \(readerKey)")
    // A new connection each time: a pooled one from before the attack would hold a slot already.
    request.headers.add(name: "connection", value: "close")
    guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(1)) else { return false }
    _ = try? await response.body.collect(upTo: 1 << 16)
    return response.status == .ok
  }

  @Test("gRPC: 8 strangers that send the HTTP/2 preface and then nothing leave a caller answered within 5 s")
  func grpcPrefaceThenSilence() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let server = try await Self.serve(in: dir)
    defer { server.process.terminate() }
    #expect(await Self.grpcAnswered(port: server.grpc), "the door answers before the attack")

    let strangers = SocketFlood()
    defer { strangers.closeAll() }
    try strangers.connect(count: Self.slots, port: server.grpc, sending: Self.preface)
    // The strangers hold every slot now (the preface passes the handshake deadline).
    try await Task.sleep(for: .milliseconds(300))
    let answered = await eventually(timeout: .seconds(5)) { await Self.grpcAnswered(port: server.grpc) }
    #expect(
      answered != nil,
      "a caller was locked out for 5 s by \(Self.slots) connections that sent only the preface (the idle timeout is 300 s)"
    )
  }

  @Test("HTTP: 8 strangers that connect and send nothing leave a caller answered within 5 s")
  func httpSilentSockets() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let server = try await Self.serve(in: dir)
    defer { server.process.terminate() }
    #expect(await Self.httpAnswered(port: server.http), "the door answers before the attack")

    let strangers = SocketFlood()
    defer { strangers.closeAll() }
    try strangers.connect(count: Self.slots, port: server.http)
    try await Task.sleep(for: .milliseconds(300))
    let answered = await eventually(timeout: .seconds(5)) { await Self.httpAnswered(port: server.http) }
    #expect(
      answered != nil,
      "a caller was locked out for 5 s by \(Self.slots) connections that sent nothing (the idle timeout is 60 s)")
  }
}

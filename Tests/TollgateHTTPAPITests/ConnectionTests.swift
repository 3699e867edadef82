import Testing
import TollgateHTTPAPI
import TollgateTesting

/// The door's connections: a stranger that connects and sends nothing must not hold a slot until
/// the idle timeout.
@Suite("HTTP door connections")
struct ConnectionTests {
  @Test("a connection that sends nothing is closed once its first head is overdue, long before the idle timeout")
  func silentConnectionIsClosed() async throws {
    var config = HTTPDoor.Config(host: "127.0.0.1", port: 0)
    config.headerTimeout = .milliseconds(500)
    config.idleTimeout = .seconds(120)
    try await DoorTesting.withLiveDoor(config: config) { port in
      let outcome = try await SlowHTTPClient.send(port: port, head: [], timeout: .seconds(10))
      #expect(outcome.closed, "a silent connection held its slot for 10 s (idle timeout 120 s)")
      #expect(outcome.bytes.isEmpty, "nothing is answered to a connection that asked nothing")
    }
  }

  @Test("a caller that sends its request in time is answered")
  func promptRequestIsAnswered() async throws {
    var config = HTTPDoor.Config(host: "127.0.0.1", port: 0)
    config.headerTimeout = .milliseconds(500)
    try await DoorTesting.withLiveDoor(config: config) { port in
      let outcome = try await SlowHTTPClient.send(
        port: port, head: SlowHTTPClient.head("GET", "/healthz", headers: ["Connection: close"]),
        timeout: .seconds(10))
      #expect(outcome.status == 200, "\(outcome.text.prefix(80))")
    }
  }

  @Test("a connection that proves no caller is closed after unprovenTimeout, however busy; a keyed one stays")
  func unprovenConnectionIsClosed() async throws {
    var config = HTTPDoor.Config(host: "127.0.0.1", port: 0)
    config.unprovenTimeout = .seconds(1)
    let healthz = Array("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
    let keyed = Array(
      "GET /v1/users/u1 HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(DoorTesting.readerKey)\r\n\r\n".utf8)
    try await DoorTesting.withLiveDoor(config: config) { port in
      // Keyless calls twice a second: answered, and closed once a second has passed unproven.
      let stranger = try await SlowHTTPClient.send(
        port: port, head: healthz, piece: healthz, every: .milliseconds(200), timeout: .seconds(10))
      #expect(stranger.closed, "a busy keyless connection held its slot for 10 s (unprovenTimeout 1 s)")
      #expect(stranger.text.hasPrefix("HTTP/1.1 200"))
      // A caller's connection, keyed from its first request, outlives the timeout.
      let caller = try await SlowHTTPClient.send(
        port: port, head: keyed, piece: keyed, every: .milliseconds(500), timeout: .seconds(3))
      #expect(!caller.closed, "a connection that proved a caller was closed (3 s, unprovenTimeout 1 s)")
    }
  }
}

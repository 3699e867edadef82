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
}

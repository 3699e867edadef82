import Foundation
import Testing
import TollgateTesting

@testable import TollgateWorker

/// Issue 25 item 4: the worker's HTTP listeners timed only the request head, so a body that never
/// ends or trickles held its connection for good, and nothing capped the connections. Over real
/// sockets against a running worker.
@Suite("Worker listener limits")
struct WorkerListenerLimitsTests {
  static let chunkedHead = SlowHTTPClient.head(
    "POST", "/notifications/fake", headers: ["Transfer-Encoding: chunked"])

  @Test("a chunked body that never ends is cut (408) within the request timeout, on both listeners")
  func endlessChunkedBody() async throws {
    let settings = WorkerListenersTests.settings {
      $0.headerTimeoutMs = 500
      $0.requestTimeoutMs = 1_000
      $0.minBodyBytesPerSecond = 0  // only the request timeout
      $0.idleTimeoutMs = 10_000
    }
    try await WorkerListenersTests().withWorker(settings) { running in
      for port in [running.port, running.adminPort] {
        // One byte of body every 100 ms, forever: the connection is never idle.
        let outcome = try await SlowHTTPClient.send(
          port: port, head: Self.chunkedHead, piece: Array("1\r\nA\r\n".utf8), every: .milliseconds(100),
          timeout: .seconds(20))
        #expect(outcome.closed, "the endless body was held for 20 s")
        // The admin listener has no such route: it answers 404 at once, and the body still
        // arriving is cut by the same deadline.
        let expected = port == running.port ? 408 : 404
        #expect(outcome.status == expected, "answered: \(outcome.text.prefix(60))")
        // Loose above: other suites share the two cores; the point is that it closes, and not early.
        #expect(outcome.elapsed >= .milliseconds(800) && outcome.elapsed < .seconds(15), "cut after \(outcome.elapsed)")
      }
      #expect(await running.storage.items.isEmpty)
    }
  }

  @Test("a body trickling below the minimum rate is refused (408) long before the request timeout")
  func tricklingBody() async throws {
    let settings = WorkerListenersTests.settings {
      $0.requestTimeoutMs = 120_000
      $0.minBodyBytesPerSecond = 200
      $0.bodyRateGraceMs = 500
    }
    try await WorkerListenersTests().withWorker(settings) { running in
      // 10 bytes a second of a 10,000-byte body.
      let head = SlowHTTPClient.head("POST", "/notifications/fake", headers: ["Content-Length: 10000"])
      let outcome = try await SlowHTTPClient.send(
        port: running.port, head: head, piece: [0x41], every: .milliseconds(100), timeout: .seconds(30))
      #expect(outcome.closed, "the trickling body was held for 30 s")
      #expect(outcome.status == 408, "answered: \(outcome.text.prefix(60))")
      #expect(outcome.elapsed < .seconds(20), "cut after \(outcome.elapsed)")
      #expect(await running.storage.items.isEmpty)

      // A body that pauses within the grace period and then arrives whole is stored.
      let body = Array(repeating: UInt8(ascii: "B"), count: 2_000)
      let legit = try await SlowHTTPClient.send(
        port: running.port,
        head: SlowHTTPClient.head(
          "POST", "/notifications/fake", headers: ["Content-Length: 2000", "Connection: close"])
          + body.prefix(1_000),
        piece: Array(body.suffix(1_000)), every: .milliseconds(300), timeout: .seconds(20))
      #expect(legit.status == 200, "answered: \(legit.text.prefix(60))")
      #expect(await running.storage.items.count == 1)
    }
  }

  @Test("connections beyond the listener's cap are closed at once; a notification gets through once they are cut")
  func connectionCap() async throws {
    let settings = WorkerListenersTests.settings {
      $0.maxConnections = 3
      $0.headerTimeoutMs = 1_000
      $0.requestTimeoutMs = 2_000
      $0.minBodyBytesPerSecond = 0
      $0.idleTimeoutMs = 10_000
    }
    try await WorkerListenersTests().withWorker(settings) { running in
      let port = running.port
      let piece = Array("1\r\nA\r\n".utf8)
      // Three slow bodies fill the public listener until the request timeout cuts them.
      async let first = SlowHTTPClient.send(port: port, head: Self.chunkedHead, piece: piece, timeout: .seconds(20))
      async let second = SlowHTTPClient.send(port: port, head: Self.chunkedHead, piece: piece, timeout: .seconds(20))
      async let third = SlowHTTPClient.send(port: port, head: Self.chunkedHead, piece: piece, timeout: .seconds(20))
      try await Task.sleep(for: .milliseconds(400))

      let notification =
        SlowHTTPClient.head(
          "POST", "/notifications/fake", headers: ["Content-Length: 5", "Connection: close"]) + Array("hello".utf8)
      let refused = try await SlowHTTPClient.send(port: port, head: notification, timeout: .seconds(20))
      #expect(refused.closed && refused.bytes.isEmpty, "a fourth connection was served: \(refused.text.prefix(60))")
      // The cap is the public listener's: the admin listener still answers.
      let health = try await SlowHTTPClient.send(
        port: running.adminPort, head: SlowHTTPClient.head("GET", "/health", headers: ["Connection: close"]),
        timeout: .seconds(20))
      #expect(health.status == 200)

      let attackers = try await [first, second, third]
      #expect(attackers.allSatisfy { $0.closed && $0.status == 408 }, "\(attackers.map(\.status))")
      let delivered = try await SlowHTTPClient.send(port: port, head: notification, timeout: .seconds(20))
      #expect(delivered.status == 200, "answered: \(delivered.text.prefix(60))")
      #expect(await running.storage.items.count == 1)
    }
  }

  @Test("the listener limits are validated, each problem naming its key")
  func validation() {
    var settings = WorkerSettings()
    settings.headerTimeoutMs = 10_000
    settings.requestTimeoutMs = 5_000
    settings.minBodyBytesPerSecond = -1
    settings.bodyRateGraceMs = -1
    settings.maxConnections = 0
    settings.adminMaxConnections = 100_000
    let problems = settings.problems()
    for key in [
      "requestTimeoutMs", "minBodyBytesPerSecond", "bodyRateGraceMs", "maxConnections", "adminMaxConnections",
    ] {
      #expect(problems.contains { $0.hasPrefix("worker.\(key): ") }, "\(key) not reported in \(problems)")
    }
    #expect(WorkerSettings().problems().isEmpty)
    let defaults = WorkerSettings()
    #expect(defaults.requestTimeoutMs == 30_000 && defaults.maxConnections == 256)
  }
}

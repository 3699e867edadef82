import Dispatch
import Foundation
import StoreSimulator
import Testing
import TollgateCrypto
import TollgateTesting

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 25 item 4 and its App Store body cost, against a real `tollgate worker` process: its HTTP
/// listeners had no connection cap (200 slow connections took it from 55 to 317 MB) and verified
/// forged App Store bodies on the cooperative pool (~0.2 CPU-seconds each for 0.9 MB).
@Suite("Worker HTTP limits", .serialized)
struct WorkerHTTPLimitsEndToEndTests {
  @Test(
    "400 slow connections beyond the cap do not grow the worker's memory; a genuine notification gets through after")
  func connectionFlood() async throws {
    let workers = try await WorkerProcesses.make(
      prefix: "tollgate-http-flood", receivingNotifications: true,
      workerSettings: ["maxConnections": 32, "headerTimeoutMs": 2_000, "requestTimeoutMs": 3_000])
    let (worker, port, _) = try await workers.start()
    defer { worker.terminate() }
    // A genuine notification the simulator does not deliver: posted by hand after the attack.
    try workers.sim.addFault(FaultRule(target: "apple.notifications", mode: .drop, count: 1))
    _ = try await workers.sim.purchase(
      .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
    let genuine = try #require(workers.sim.notifications.last { $0.store == "apple" && $0.state == "dropped" })
    let pid = worker.process.processIdentifier
    let before = try #require(ProcessMemory.residentBytes(pid: pid))

    // Each attacker announces a 900 KB notification (on the V1 route, which takes up to
    // `worker.maxNotificationBytes`), sends 256 KB of it and stalls.
    let request =
      SlowHTTPClient.head("POST", "/notifications/apple/v1", headers: ["Content-Length: 900000"])
      + [UInt8](repeating: 0x41, count: 256 * 1_024)
    let attackers = await Self.offPool { Self.openConnections(port: port, count: 400, sending: request) }
    try await Task.sleep(for: .seconds(1))
    let during = try #require(ProcessMemory.residentBytes(pid: pid))
    // Unbounded, 400 × 256 KB held ≈ 100 MB; the cap holds 32 of them.
    #expect(during - before < 64 << 20, "the worker grew by \((during - before) >> 20) MB under 400 connections")

    // The request timeout cuts the 32 it accepted; the notification then gets through.
    try await Task.sleep(for: .seconds(4))
    let delivered = try await httpRequest(
      "POST", port: port, path: "/notifications/apple/v2", body: Data(genuine.body.utf8))
    #expect(delivered.status == 200)
    for fd in attackers { close(fd) }
    worker.terminate()
    _ = worker.finish()
    await workers.remove()
  }

  @Test("the admin /health answers while forged App Store bodies of up to 0.9 MB keep arriving")
  func healthWhileForgedBodiesArrive() async throws {
    let workers = try await WorkerProcesses.make(prefix: "tollgate-http-forged")
    let (worker, port, adminPort) = try await workers.start()
    defer { worker.terminate() }
    // Apple's header with the simulator's real chain, over claims nobody signed.
    let purchase = try await workers.sim.purchase(
      .init(productId: Stack.premium, bundleId: Stack.bundleId, environment: "Sandbox"))
    let header = String(purchase.signedTransaction.split(separator: ".")[0])
    // ~0.9 MB: under `worker.maxNotificationBytes` (1 MiB), which alone let it through before.
    let large = try Self.forgedBody(header: header, paddingBytes: 660_000)
    #expect(large.count > 850_000 && large.count < 1 << 20)
    let small = try Self.forgedBody(header: header, paddingBytes: 60_000)

    let end = ContinuousClock.now + .seconds(10)
    async let statuses = withTaskGroup(of: [Int].self) { group in
      for sender in 0..<80 {
        let body = sender % 4 == 3 ? small : large
        group.addTask {
          var statuses: [Int] = []
          while ContinuousClock.now < end {
            let head = SlowHTTPClient.head(
              "POST", "/notifications/apple/v2", headers: ["Content-Length: \(body.count)", "Connection: close"])
            let outcome = try? await SlowHTTPClient.send(port: port, head: head + body, timeout: .seconds(60))
            statuses.append(outcome?.status ?? 0)
            // A refused body is answered at once: a short pause keeps the senders from spinning.
            try? await Task.sleep(for: .milliseconds(50))
          }
          return statuses
        }
      }
      return await group.reduce(into: []) { $0 += $1 }
    }
    try await Task.sleep(for: .seconds(2))
    var slowest = Duration.zero
    for _ in 0..<3 {
      let health = try await SlowHTTPClient.send(
        port: adminPort, head: SlowHTTPClient.head("GET", "/health", headers: ["Connection: close"]),
        timeout: .seconds(60))
      #expect(health.status == 200)
      slowest = max(slowest, health.elapsed)
      try await Task.sleep(for: .seconds(1))
    }
    // A liveness bound, not a speed measure: verifying forged bodies on the cooperative pool kept
    // /health waiting far longer.
    #expect(slowest < .seconds(5), "/health took \(slowest) while forged bodies arrived")
    let answered = await statuses
    #expect(!answered.isEmpty)
    #expect(!answered.contains(200), "a forged body was stored")
    #expect(Set(answered).isSubset(of: [0, 403, 413]), "\(Set(answered))")
    // 413s often arrive as a reset (the worker closes while the body is still coming): only the
    // 403s of the smaller bodies, read whole and verified, are sure to be seen.
    #expect(answered.contains(403))
    worker.terminate()
    _ = worker.finish()
    await workers.remove()
  }

  /// `{"signedPayload": …}` with `header` over unsigned claims for the test app, padded.
  static func forgedBody(header: String, paddingBytes: Int) throws -> [UInt8] {
    let claims: [String: Any] = [
      "notificationType": "DID_RENEW", "notificationUUID": UUID().uuidString, "signedDate": 1,
      "data": [
        "bundleId": Stack.bundleId, "environment": "Sandbox", "padding": String(repeating: "x", count: paddingBytes),
      ],
    ]
    let payload = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims)))
    let signature = Base64URL.encode([UInt8](repeating: 9, count: 64))
    return Array(try JSONSerialization.data(withJSONObject: ["signedPayload": "\(header).\(payload).\(signature)"]))
  }

  /// Runs blocking socket calls on a Dispatch thread, not the cooperative pool.
  static func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: body()) }
    }
  }

  /// Opens `count` connections to 127.0.0.1:`port` that each send `bytes` (as much as the peer
  /// takes within a second) and then nothing; returns the ones still open.
  static func openConnections(port: Int, count: Int, sending bytes: [UInt8]) -> [Int32] {
    var sent: [Int32: Int] = [:]
    for _ in 0..<count {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(port).bigEndian)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard connected == 0 else {
        close(fd)
        continue
      }
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      sent[fd] = 0
    }
    // Nonblocking sends, a few rounds: whatever the worker reads, it holds.
    for _ in 0..<20 where sent.contains(where: { $0.value < bytes.count }) {
      for (fd, offset) in sent where offset < bytes.count {
        let written = bytes.withUnsafeBytes {
          send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
        }
        if written > 0 {
          sent[fd] = offset + written
        } else if written < 0 && errno != EAGAIN && errno != EWOULDBLOCK {
          sent[fd] = bytes.count  // closed by the worker: nothing more to send
        }
      }
      usleep(50_000)
    }
    return Array(sent.keys)
  }
}

import Glibc
import Logging
import NIOCore
import Testing
import TollgateContract
import TollgateServer
import TollgateTesting
import TollgateWire

/// The server's own event loops under flow conditions: a peer that stops reading, many connections
/// over several loops, and a shutdown with calls still in flight.
@Suite("RPC server flow control and shutdown")
struct RPCServerFlowTests {
  static let logger = Logger(label: "test.rpc.flow")

  /// The most a TCP socket buffer may grow to (`net.ipv4.<name>`'s last field); 32 MB when the
  /// setting cannot be read.
  static func largestSocketBuffer(_ name: String) -> Int {
    guard let file = fopen("/proc/sys/net/ipv4/\(name)", "r") else { return 32 << 20 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 128)
    guard fgets(&line, Int32(line.count), file) != nil else { return 32 << 20 }
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } ?? 32 << 20
  }

  /// A non-blocking loopback socket, for writing without reading.
  struct RawSocket {
    let fd: Int32

    init(port: Int) throws {
      fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      // Fixed buffers on this side (no autotuning to 32 MB), so the server's side fills.
      var size: Int32 = 262_144
      _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
      _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(port).bigEndian)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      try #require(connected == 0)
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Bytes written (0 when the socket takes nothing now).
    func write(_ bytes: ArraySlice<UInt8>) -> Int {
      let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      return max(count, 0)
    }

    /// Appends whatever has arrived to `bytes`, through `scratch`.
    func read(into bytes: inout [UInt8], scratch: inout [UInt8]) {
      let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count > 0 { bytes.append(contentsOf: scratch[0..<count]) }
    }

    func close() { _ = Glibc.close(fd) }
  }

  /// Request ids of the complete response frames in `bytes` from `offset` on; moves `offset` past
  /// them.
  static func responseIds(in bytes: [UInt8], from offset: inout Int) -> [UInt32] {
    var ids: [UInt32] = []
    func word(_ at: Int) -> UInt32 {
      UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
    while bytes.count - offset >= 16 {
      let length = Int(word(offset + 8))
      guard bytes.count - offset >= 16 + length else { break }
      if word(offset) != 0 { Issue.record("status \(word(offset))") }
      ids.append(word(offset + 12))
      offset += 16 + length
    }
    return ids
  }

  @Test("a peer that does not read stops being read; once it reads, every request is answered exactly once")
  func backpressure() async throws {
    var config = RPCServer.Config.defaults
    config.writeBufferHighWatermark = 32 * 1024
    // The peer reads nothing until the server stops reading it; on two cores under the full suite
    // that took longer than the default write timeout, which would close it (issue 25 item 2).
    config.writeTimeout = .seconds(120)
    let handler = FakeEntitlementsHandler()
    let server = try RPCServer.bind(
      host: "127.0.0.1", port: 0, config: config, handler: handler, threads: 1, logger: Self.logger)
    async let serving: Void = server.run()
    let socket = try RawSocket(port: server.port)
    defer { socket.close() }

    // More bytes each way than the socket buffers can hold: the server's receive buffer may grow
    // to tcp_rmem's maximum while it reads fast, its send buffer to tcp_wmem's. The fake echoes
    // the entitlement in its answer, so 10 KB requests get 10 KB answers.
    let buffers = Self.largestSocketBuffer("tcp_rmem") + Self.largestSocketBuffer("tcp_wmem")
    let total = buffers / 10_000 + 1_000
    let payloads = try ["yes", "no"].map { user -> [UInt8] in
      var request = Tollgate_V1_IsSubscriberRequest()
      request.userID = user
      request.entitlement = String(repeating: "e", count: 10_000)
      return try request.serializedBytes()
    }
    var requests: [UInt8] = []
    requests.reserveCapacity(total * 10_040)
    for id in 0..<total {
      requests += RawWire.request(methodIndex: 0, requestId: UInt32(id), payload: payloads[id % 2])
    }
    // Write without reading until the server stops taking requests: its answers fill the socket
    // buffers and its own bounded queue, then it stops reading and ours fill too.
    var sent = 0
    var idleRounds = 0
    while sent < requests.count, idleRounds < 50 {
      let count = socket.write(requests[sent...])
      sent += count
      if count == 0 {
        idleRounds += 1
        try await Task.sleep(for: .milliseconds(2))
      } else {
        idleRounds = 0
      }
    }
    #expect(sent < requests.count, "the server kept reading from a peer that never read its answers")

    // Now read while writing the rest: every id comes back once.
    var received: [UInt8] = []
    var scratch = [UInt8](repeating: 0, count: 262_144)
    var parsed = 0
    var seen = [Bool](repeating: false, count: total)
    var answered = 0
    let deadline = ContinuousClock.now + .seconds(30)
    while answered < total, ContinuousClock.now < deadline {
      if sent < requests.count { sent += socket.write(requests[sent...]) }
      let before = received.count
      socket.read(into: &received, scratch: &scratch)
      if received.count == before {
        try await Task.sleep(for: .milliseconds(1))
        continue
      }
      for id in Self.responseIds(in: received, from: &parsed) {
        if seen[Int(id)] { Issue.record("request \(id) answered twice") }
        seen[Int(id)] = true
        answered += 1
      }
      if parsed > 1 << 20 {
        received.removeFirst(parsed)
        parsed = 0
      }
    }
    #expect(answered == total)
    #expect(!seen.contains(false))
    #expect(received.count == parsed)
    handler.release()
    try await server.close()
    try await serving
  }

  @Test("many connections over several loops are each answered")
  func manyConnections() async throws {
    let handler = FakeEntitlementsHandler()
    let server = try RPCServer.bind(host: "127.0.0.1", port: 0, handler: handler, threads: 3, logger: Self.logger)
    async let serving: Void = server.run()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for connection in 0..<40 {
        group.addTask {
          var bytes: [UInt8] = []
          for id in 0..<20 { bytes += try RequestFrames.isSubscriber(id: UInt32(connection * 100 + id), user: "yes") }
          let responses = try await RawWire.exchange(port: server.port, chunks: [bytes], frames: 20)
          #expect(Set(responses.map(\.requestId)) == Set((0..<20).map { UInt32(connection * 100 + $0) }))
        }
      }
      try await group.waitForAll()
    }
    handler.release()
    try await server.close()
    try await serving
  }

  @Test("close() answers the calls in flight before closing their connections, then refuses new ones")
  func closeDrainsDeferredCalls() async throws {
    let handler = FakeEntitlementsHandler()
    let server = try RPCServer.bind(host: "127.0.0.1", port: 0, handler: handler, threads: 2, logger: Self.logger)
    async let serving: Void = server.run()
    let frame = try RequestFrames.submitPurchase(id: 77)
    async let answer = RawWire.exchange(port: server.port, chunks: [frame], frames: 1, timeout: .seconds(10))
    try await handler.waitUntilSubmitted()

    async let closed: Void = server.close()
    try await Task.sleep(for: .milliseconds(100))
    handler.release()
    let responses = try await answer
    #expect(responses.map(\.requestId) == [77])
    #expect(responses.first?.status == 0)
    try await closed
    try await serving

    await #expect(throws: (any Error).self) {
      _ = try await RawWire.exchange(port: server.port, chunks: [frame], frames: 1, timeout: .seconds(2))
    }
  }

  @Test("close() gives up on calls that outlast the grace period")
  func closeGivesUpAfterGracePeriod() async throws {
    var config = RPCServer.Config.defaults
    config.shutdownGracePeriod = .milliseconds(200)
    let handler = FakeEntitlementsHandler()
    let server = try RPCServer.bind(
      host: "127.0.0.1", port: 0, config: config, handler: handler, threads: 1, logger: Self.logger)
    async let serving: Void = server.run()
    let frame = try RequestFrames.submitPurchase(id: 5)
    async let answer = RawWire.exchange(port: server.port, chunks: [frame], frames: 1, timeout: .seconds(10))
    try await handler.waitUntilSubmitted()
    let started = ContinuousClock.now
    try await server.close()
    try await serving
    #expect(ContinuousClock.now - started < .seconds(5))
    // The connection closed without an answer.
    let responses = try await answer
    #expect(responses.isEmpty)
    handler.release()
  }

  @Test("a port in use is a clear error")
  func portInUse() async throws {
    let handler = FakeEntitlementsHandler()
    let first = try RPCServer.bind(host: "127.0.0.1", port: 0, handler: handler, threads: 1, logger: Self.logger)
    async let serving: Void = first.run()
    #expect(throws: RPCServerError.bindFailed(host: "127.0.0.1", port: first.port, errno: EADDRINUSE)) {
      _ = try RPCServer.bind(host: "127.0.0.1", port: first.port, handler: handler, threads: 1, logger: Self.logger)
    }
    #expect(throws: RPCServerError.unresolvableHost("no-such-host.invalid")) {
      _ = try RPCServer.bind(host: "no-such-host.invalid", port: 0, handler: handler, threads: 1, logger: Self.logger)
    }
    try await first.close()
    try await serving
  }

  @Test("a server closed before it runs returns from run() at once; one that is running cannot run twice")
  func runOnce() async throws {
    let handler = FakeEntitlementsHandler()
    let closed = try RPCServer.bind(host: "127.0.0.1", port: 0, handler: handler, threads: 1, logger: Self.logger)
    try await closed.close()
    try await closed.run()  // returns: nothing to serve
    await #expect(throws: (any Error).self) {
      _ = try await RawWire.exchange(
        port: closed.port, chunks: [try RequestFrames.isSubscriber(id: 1, user: "yes")], frames: 1)
    }

    let server = try RPCServer.bind(host: "127.0.0.1", port: 0, handler: handler, threads: 1, logger: Self.logger)
    async let serving: Void = server.run()
    let answers = try await RawWire.exchange(
      port: server.port, chunks: [try RequestFrames.isSubscriber(id: 2, user: "yes")], frames: 1)
    #expect(answers.map(\.requestId) == [2])
    await #expect(throws: RPCServerError.notRunnable) { try await server.run() }
    try await server.close()
    try await serving
  }
}

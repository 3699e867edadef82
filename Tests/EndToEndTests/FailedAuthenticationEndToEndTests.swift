import Foundation
import Testing
import TollgateContract
import TollgateTesting
import TollgateWire

/// Issue 25 item 1, tried as an attacker would against `tollgate serve` as a process: failed
/// Authenticate calls with huge or hostile caller names, and from one address over many connections.
@Suite(
  "tollgate serve: failed authentications hold no memory, forge no log line, and are limited per address", .serialized)
struct FailedAuthenticationEndToEndTests {
  static let readerKey = ServeAccessEndToEndTests.readerKey

  static func serve(in dir: TemporaryDirectory, _ extra: [String: Any] = [:]) async throws
    -> ServeAccessEndToEndTests.Running
  {
    var service: [String: Any] = [
      "listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"),
      "callers": [["name": "reader", "keySha256": ServeAccessEndToEndTests.hex(readerKey), "scopes": ["read"]]],
    ]
    service.merge(extra) { _, new in new }
    return try await ServeAccessEndToEndTests.serve(service, in: dir)
  }

  static func port(_ server: ServeAccessEndToEndTests.Running) -> Int {
    Int(server.tcp[server.tcp.index(after: server.tcp.lastIndex(of: ":")!)...])!
  }

  static func authenticate(id: UInt32, caller: String, key: String) throws -> [UInt8] {
    try RawWire.authenticate(id: id, caller: caller, key: key)
  }

  static func health(id: UInt32) throws -> [UInt8] {
    RawWire.request(
      methodIndex: EntitlementsMethod.health.rawValue, requestId: id,
      payload: try Tollgate_V1_HealthRequest().serializedBytes())
  }

  /// The process's resident memory in bytes (/proc/PID/status, VmRSS).
  static func residentBytes(_ pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
    return try #require(Int(line.split(separator: " ")[1])) * 1_024
  }

  @Test("600 failed authentications with 1 MB caller names leave serve's memory within 20 MB of its start")
  func hugeCallerNames() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    // A generous limit per address, so that every one of the 600 reaches Authenticate and is
    // counted and logged (sampled), and unauthenticated frames as long as any (item 3 caps them at
    // 4 KiB by default, which alone would refuse these frames before Authenticate).
    let server = try await Self.serve(
      in: dir, ["failedAuthenticationBurstPerSource": 1_000, "maxUnauthenticatedMessageBytes": 1 << 20])
    defer { server.process.terminate() }
    let port = Self.port(server)
    let pid = server.process.process.processIdentifier
    let warmUp = try await RawWire.exchange(
      port: port, chunks: [try Self.authenticate(id: 1, caller: "warm-up", key: "wrong")], frames: 1)
    #expect(warmUp.count == 1)
    let start = try Self.residentBytes(pid)

    let name = String(repeating: "n", count: 1_000_000)
    // 200 connections of three failures each (the third closes the connection), four at a time.
    let failures = try await withThrowingTaskGroup(of: Int.self) { group in
      for worker in 0..<4 {
        group.addTask {
          var failed = 0
          for connection in 0..<50 {
            var bytes: [UInt8] = []
            for call in 0..<3 {
              let unique = "\(worker)-\(connection)-\(call)-" + name
              bytes += try Self.authenticate(id: UInt32(call + 1), caller: unique, key: "wrong")
            }
            let answers = try await RawWire.exchange(port: port, chunks: [bytes], frames: 3, timeout: .seconds(20))
            for answer in answers {
              let response = try Tollgate_V1_AuthenticateResponse(serializedBytes: answer.payload)
              if response.error.code == .unauthenticated { failed += 1 }
            }
          }
          return failed
        }
      }
      return try await group.reduce(0, +)
    }
    #expect(failures == 600)
    // The server lets go of freed partial frames within its one-second sweep.
    var resident = try Self.residentBytes(pid)
    let deadline = ContinuousClock.now + .seconds(10)
    while resident > start + 20_000_000, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(250))
      resident = try Self.residentBytes(pid)
    }
    #expect(
      resident <= start + 20_000_000, "serve grew from \(start >> 20) MiB to \(resident >> 20) MiB and stayed there")
    // Still answering.
    let health = try await RawWire.exchange(port: port, chunks: [try Self.health(id: 9)], frames: 1)
    #expect(health.count == 1)
  }

  @Test("a caller name with a newline cannot start a forged log line: it is logged escaped and truncated")
  func forgedLogLine() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let server = try await Self.serve(in: dir)
    defer { server.process.terminate() }
    let forged = "FORGED-LINE tollgate.rpc : caller=admin authenticated"
    let name = "intruder\n\(forged)\r\n" + String(repeating: "z", count: 2_000)
    let answers = try await RawWire.exchange(
      port: Self.port(server), chunks: [try Self.authenticate(id: 1, caller: name, key: "wrong")], frames: 1)
    #expect(answers.count == 1)
    server.process.terminate()
    let process = server.process
    let log = await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: process.finish().stderr) }
    }
    let lines = log.split(separator: "\n", omittingEmptySubsequences: false)
    let failure = try #require(lines.first { $0.contains("authentication failed") }, "\(log)")
    #expect(failure.contains("intruder\\nFORGED-LINE"), "\(failure)")
    #expect(failure.contains("…(\(name.utf8.count) bytes)"), "the name is cut, its size said: \(failure)")
    #expect(!failure.contains("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"))
    #expect(!lines.contains { $0.hasPrefix("FORGED-LINE") }, "\(log)")
  }

  @Test(
    "failures are counted per address: reconnecting resets nothing, a valid key resets nothing, and past the limit even a valid key is refused"
  )
  func perAddress() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    // The defaults: 3 failures per connection, 10 per address (refilled at 10 a minute).
    let server = try await Self.serve(in: dir)
    defer { server.process.terminate() }
    let port = Self.port(server)
    /// Sends Authenticate with each key, then `extra`; reads up to `frames` answers or until the
    /// server closes the connection.
    func exchange(_ keys: [String], then extra: [UInt8] = [], frames: Int) async throws -> [RawResponse] {
      var bytes: [UInt8] = []
      for (number, key) in keys.enumerated() {
        bytes += try Self.authenticate(id: UInt32(number + 1), caller: "reader", key: key)
      }
      return try await RawWire.exchange(port: port, chunks: [bytes + extra], frames: frames)
    }
    func codes(_ answers: [RawResponse]) throws -> [Tollgate_V1_ErrorCode] {
      try answers.map { try Tollgate_V1_AuthenticateResponse(serializedBytes: $0.payload).error.code }
    }

    // A valid key between failures does not reset the connection's count: the third failure closes it.
    let first = try await exchange(
      ["wrong", "wrong", Self.readerKey, "wrong"], then: try Self.health(id: 9), frames: 5)
    #expect(first.map(\.requestId) == [1, 2, 3, 4])
    #expect(try codes(first) == [.unauthenticated, .unauthenticated, .unspecified, .unauthenticated])
    // New connections add to the address's count: 3 + 3 + 3 + 1 = 10.
    for keys in [["wrong", "wrong", "wrong"], ["wrong", "wrong", "wrong"], ["wrong"]] {
      let answers = try await exchange(keys, frames: keys.count)
      #expect(try codes(answers) == keys.map { _ in .unauthenticated })
    }
    // The address has used its failures: a new connection's Authenticate is refused without its
    // key being checked, the valid key's too, and the connection closed.
    for key in [Self.readerKey, "wrong"] {
      let refused = try await exchange([key], then: try Self.health(id: 9), frames: 2)
      #expect(refused.count == 1, "nothing after the refusal is answered")
      let answer = try Tollgate_V1_AuthenticateResponse(serializedBytes: try #require(refused.first).payload)
      #expect(answer.error.code == .resourceExhausted)
      #expect(answer.error.message.contains("from this address"))
    }
  }
}

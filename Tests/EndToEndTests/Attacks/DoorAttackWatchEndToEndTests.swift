import Foundation
import Testing
import TollgateTesting

/// Issue 28, tried as a stranger would against `tollgate serve` as a process: `grpc.health.v1.Health/Watch`
/// needs no key, so anyone may open watchers. A watcher whose connection is gone must end; when
/// they did not, 12,800 watchers opened and dropped kept serve polling for them for good (their memory
/// and a sixth of a core of a debug build; each round of them added more), with the strangers gone.
@Suite("tollgate serve's gRPC door: health watchers whose connection closed stop costing", .serialized)
struct DoorAttackWatchEndToEndTests {
  /// A stranger's connection: the HTTP/2 preface, an empty SETTINGS frame, then `streams` Watch
  /// calls for the server as a whole (HEADERS with literal fields, a 5-byte empty message ending the
  /// request side).
  static func watchers(streams: Int) -> [UInt8] {
    var bytes = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + frame(type: 4, flags: 0, stream: 0, [])
    let fields: [(String, String)] = [
      (":method", "POST"), (":scheme", "http"), (":path", "/grpc.health.v1.Health/Watch"), (":authority", "tollgate"),
      ("content-type", "application/grpc"), ("te", "trailers"),
    ]
    var block: [UInt8] = []
    for (name, value) in fields {
      block += [0, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(value.utf8.count)] + Array(value.utf8)
    }
    for index in 0..<streams {
      let stream = UInt32(1 + 2 * index)
      bytes += frame(type: 1, flags: 0x4, stream: stream, block)  // HEADERS, END_HEADERS
      bytes += frame(type: 0, flags: 0x1, stream: stream, [0, 0, 0, 0, 0])  // DATA, END_STREAM
    }
    return bytes
  }

  static func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
    let length = UInt32(payload.count)
    return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags]
      + [UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
      + payload
  }

  /// The CPU time serve has used (user + system, clock ticks of 10 ms), from /proc/PID/stat.
  static func cpuTicks(_ pid: Int32) throws -> Int {
    let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
    // The fields after the command's closing parenthesis: state is the 3rd field, utime the 14th.
    let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
    return try #require(Int(fields[11])) + (try #require(Int(fields[12])))
  }

  @Test("12,800 keyless Watch streams, their connections closed: serve is idle again within 20 s")
  func watchersThatLeft() async throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let server = try await DoorAttackServe.start(
      [
        "listen": "127.0.0.1:0", "database": dir.file("tollgate.sqlite"),
        "callers": [
          [
            "name": "reader", "keySha256": ServeAccessEndToEndTests.hex("tgk_watch_reader_0123456789"),
            "scopes": ["read"],
          ]
        ],
        "grpc": ["listen": "127.0.0.1:0"], "http": ["listen": "127.0.0.1:0"],
      ], in: dir)
    defer { server.process.terminate() }
    let pid = server.process.process.processIdentifier

    let strangers = SocketFlood()
    defer { strangers.closeAll() }
    // 200 connections of 64 watchers (the door's default stream limit), all keyless.
    try strangers.connect(count: 200, port: server.grpc, sending: Self.watchers(streams: 64), timeout: .seconds(20))
    try await Task.sleep(for: .seconds(2))
    strangers.closeAll()
    // Refusing and ending that many calls takes serve a few seconds (debug build); then it must be
    // idle: some 2-second window within 20 s uses under 15 ticks (an idle serve uses about 5, and
    // 9,600 leaked watchers used about 27 in every window, for good).
    var windows: [Int] = []
    while windows.count < 10, windows.last.map({ $0 >= 15 }) ?? true {
      let before = try Self.cpuTicks(pid)
      try await Task.sleep(for: .seconds(2))
      windows.append(try Self.cpuTicks(pid) - before)
    }
    #expect(
      try #require(windows.last) < 15,
      "serve kept busy after every stranger had gone: CPU ticks (10 ms) per 2 s, one window after another: \(windows)")
  }
}

import Foundation
import NIOCore
import NIOPosix

/// An HTTP client that behaves as an attacker would: it sends a request head, then the body a
/// piece at a time (or never), over a plain TCP connection, and reports what came back and when
/// the peer closed.
public enum SlowHTTPClient {
  public struct Outcome: Sendable {
    public var bytes: [UInt8]
    /// The peer closed the connection before the timeout.
    public var closed: Bool
    /// From the connection's start to the close (or the timeout).
    public var elapsed: Duration
    public var text: String { String(decoding: bytes, as: UTF8.self) }
    /// The first response's status code, 0 if none.
    public var status: Int {
      guard text.hasPrefix("HTTP/1.1 ") else { return 0 }
      return Int(text.dropFirst(9).prefix(3)) ?? 0
    }
  }

  /// Connects to 127.0.0.1:`port`, writes `head`, then `piece` every `interval` (never when
  /// `piece` is empty) until the peer closes or `timeout` passes.
  public static func send(
    port: Int, head: [UInt8], piece: [UInt8] = [], every interval: Duration = .milliseconds(100),
    timeout: Duration = .seconds(20)
  ) async throws -> Outcome {
    let started = ContinuousClock.now
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connect(host: "127.0.0.1", port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
          try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
      }
    return try await channel.executeThenClose { inbound, outbound in
      try? await outbound.write(ByteBuffer(bytes: head))
      return await withTaskGroup(of: Outcome?.self) { group in
        group.addTask {
          var bytes: [UInt8] = []
          do {
            for try await buffer in inbound { bytes += Array(buffer.readableBytesView) }
          } catch {
            // A reset after the response: what arrived is kept.
          }
          return Outcome(bytes: bytes, closed: true, elapsed: ContinuousClock.now - started)
        }
        group.addTask {
          // The writer never ends the group: it writes until it cannot, then waits to be cancelled.
          while !piece.isEmpty, !Task.isCancelled {
            try? await Task.sleep(for: interval)
            do { try await outbound.write(ByteBuffer(bytes: piece)) } catch { break }
          }
          try? await Task.sleep(for: timeout + .seconds(60))
          return nil
        }
        group.addTask {
          try? await Task.sleep(for: timeout)
          return nil
        }
        var first: Outcome?
        if let finished = await group.next() { first = finished }
        group.cancelAll()
        return first ?? Outcome(bytes: [], closed: false, elapsed: ContinuousClock.now - started)
      }
    }
  }

  /// A request head with `headers` (`Host` added), ending in the blank line.
  public static func head(_ method: String, _ path: String, headers: [String] = []) -> [UInt8] {
    Array((["\(method) \(path) HTTP/1.1", "Host: t"] + headers + ["", ""]).joined(separator: "\r\n").utf8)
  }
}

/// A process's memory as the kernel counts it.
public enum ProcessMemory {
  /// The resident set (`VmRSS` of `/proc/PID/status`), in bytes; nil when it cannot be read.
  public static func residentBytes(pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { return nil }
    return kilobytes * 1_024
  }
}

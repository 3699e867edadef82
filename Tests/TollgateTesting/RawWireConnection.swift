import NIOCore
import NIOPosix

/// A response frame parsed by hand from the protocol description, independent of Tollgate's codec.
public struct RawResponse: Sendable, Hashable {
  public var status: UInt32
  public var methodIndex: UInt32
  public var requestId: UInt32
  public var payload: [UInt8]
}

/// Talks to a server at the byte level: sends exactly the bytes a test gives, in the chunks it
/// gives, and parses what comes back.
public enum RawWire {
  public struct Timeout: Error, CustomStringConvertible {
    public var received: [RawResponse]
    public var description: String { "timed out after \(received.count) frames" }
  }

  /// Builds a request frame by hand: method_index, message_length, request_id (all u32 LE), payload.
  public static func request(methodIndex: UInt32, requestId: UInt32, payload: [UInt8]) -> [UInt8] {
    le(methodIndex) + le(UInt32(payload.count)) + le(requestId) + payload
  }

  /// A request header that announces `length` payload bytes (which the test may or may not send).
  public static func header(methodIndex: UInt32, requestId: UInt32, length: UInt32) -> [UInt8] {
    le(methodIndex) + le(length) + le(requestId)
  }

  public static func le(_ value: UInt32) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
  }

  /// Connects, writes each chunk (flushing between chunks), and reads until `frames` responses
  /// arrived, the peer closed, or `timeout` passed. With `closeAfterSending` the write half is
  /// closed after the last chunk.
  public static func exchange(
    port: Int, host: String = "127.0.0.1", chunks: [[UInt8]], frames: Int, timeout: TimeAmount = .seconds(5)
  ) async throws -> [RawResponse] {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connect(host: host, port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
          try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
      }
    return try await channel.executeThenClose { inbound, outbound in
      for chunk in chunks {
        try await outbound.write(ByteBuffer(bytes: chunk))
      }
      if frames == 0 { return [] }
      return try await withThrowingTaskGroup(of: [RawResponse]?.self) { group in
        group.addTask {
          var buffer: [UInt8] = []
          var responses: [RawResponse] = []
          for try await incoming in inbound {
            buffer += Array(incoming.readableBytesView)
            while let (response, used) = parse(buffer) {
              responses.append(response)
              buffer.removeFirst(used)
            }
            if responses.count >= frames { break }
          }
          return responses
        }
        group.addTask {
          try await Task.sleep(nanoseconds: UInt64(timeout.nanoseconds))
          return nil
        }
        let first = try await group.next()!
        group.cancelAll()
        guard let responses = first else { throw Timeout(received: []) }
        return responses
      }
    }
  }

  static func parse(_ bytes: [UInt8]) -> (RawResponse, Int)? {
    guard bytes.count >= 16 else { return nil }
    func u32(_ at: Int) -> UInt32 {
      UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
    let length = Int(u32(8))
    guard bytes.count >= 16 + length else { return nil }
    return (
      RawResponse(status: u32(0), methodIndex: u32(4), requestId: u32(12), payload: Array(bytes[16..<(16 + length)])),
      16 + length
    )
  }
}

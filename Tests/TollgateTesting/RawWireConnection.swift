import NIOCore
import NIOPosix
import Synchronization

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
    port: Int, host: String = "127.0.0.1", chunks: [[UInt8]], frames: Int, timeout: TimeAmount = .seconds(30)
  ) async throws -> [RawResponse] {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connect(host: host, port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
          try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
      }
    return try await exchange(over: channel, chunks: chunks, frames: frames, timeout: timeout)
  }

  /// `exchange` over a Unix domain socket.
  public static func exchange(
    unixSocket path: String, chunks: [[UInt8]], frames: Int, timeout: TimeAmount = .seconds(30)
  ) async throws -> [RawResponse] {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connect(unixDomainSocketPath: path) { channel in
        channel.eventLoop.makeCompletedFuture {
          try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
      }
    return try await exchange(over: channel, chunks: chunks, frames: frames, timeout: timeout)
  }

  private static func exchange(
    over channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, chunks: [[UInt8]], frames: Int, timeout: TimeAmount
  ) async throws -> [RawResponse] {
    try await channel.executeThenClose { inbound, outbound in
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

/// One raw connection kept open across sends: for tests of what a connection's state does over
/// time (authentication, reloads, timeouts). Answers are collected as they come.
public final class RawConnection: Sendable {
  private final class Collector: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let bytes = Mutex<[UInt8]>([])

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      let buffer = Self.unwrapInboundIn(data)
      bytes.withLock { $0 += Array(buffer.readableBytesView) }
    }
  }

  private let channel: any Channel
  private let collector: Collector

  private init(channel: any Channel, collector: Collector) {
    self.channel = channel
    self.collector = collector
  }

  public static func connect(port: Int, host: String = "127.0.0.1") async throws -> RawConnection {
    let collector = Collector()
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
      }
      .connect(host: host, port: port).get()
    return RawConnection(channel: channel, collector: collector)
  }

  public func send(_ bytes: [UInt8]) async throws {
    try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
  }

  /// The next `frames` answers; fewer if the server closes first or `timeout` passes.
  public func receive(frames: Int, timeout: Duration = .seconds(30)) async throws -> [RawResponse] {
    let deadline = ContinuousClock.now + timeout
    var responses: [RawResponse] = []
    while responses.count < frames {
      let parsed = collector.bytes.withLock { bytes -> RawResponse? in
        guard let (response, used) = RawWire.parse(bytes) else { return nil }
        bytes.removeFirst(used)
        return response
      }
      if let parsed {
        responses.append(parsed)
        continue
      }
      guard channel.isActive, ContinuousClock.now < deadline else { break }
      try await Task.sleep(for: .milliseconds(5))
    }
    return responses
  }

  /// Waits until the server closes the connection (true), or `timeout` passes (false).
  public func waitForClose(timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline, channel.isActive {
      try? await Task.sleep(for: .milliseconds(20))
    }
    return !channel.isActive
  }

  public func close() async throws {
    try? await channel.close()
  }
}

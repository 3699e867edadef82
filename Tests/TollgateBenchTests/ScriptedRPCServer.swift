import NIOCore
import NIOPosix
import TollgateContract
import TollgateWire

/// A protobuf-c-rpc server for the load generator's tests that answers every request with
/// `active: true`, and can misbehave: answer each read burst backwards, answer one request twice,
/// answer with an id nobody sent, or hold one answer back.
final class ScriptedRPCServer: Sendable {
  enum Behaviour: Sendable {
    case inOrder
    case reverseEachBurst
    /// Answers the n-th request (1-based, per connection) twice.
    case duplicate(Int)
    /// Answers the n-th request with a request id that was never sent.
    case unknownId(Int)
    /// Holds the answer to the n-th request (and everything after it) back for `ms`.
    case stall(Int, ms: Int64)
  }

  let channel: any Channel
  var port: Int { channel.localAddress!.port! }

  private init(channel: any Channel) { self.channel = channel }

  static func start(_ behaviour: Behaviour) async throws -> ScriptedRPCServer {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(RequestFrameDecoder(maximumPayloadLength: 1 << 16)))
          try channel.pipeline.syncOperations.addHandler(Answerer(behaviour: behaviour))
        }
      }
      .bind(host: "127.0.0.1", port: 0).get()
    return ScriptedRPCServer(channel: channel)
  }

  func stop() async { try? await channel.close() }

  private final class Answerer: ChannelInboundHandler {
    typealias InboundIn = InboundRequest
    typealias OutboundOut = ByteBuffer

    let behaviour: Behaviour
    var burst: [RequestFrame] = []
    var seen = 0
    /// Answers are held back until then (stall).
    var heldUntil: NIODeadline?

    init(behaviour: Behaviour) { self.behaviour = behaviour }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      guard case .request(let frame) = unwrapInboundIn(data) else { return }
      burst.append(frame)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
      var answers: [UInt32] = []
      var stallFor: Int64?
      for frame in burst {
        seen += 1
        answers.append(frame.requestId)
        switch behaviour {
        case .duplicate(let n) where n == seen: answers.append(frame.requestId)
        case .unknownId(let n) where n == seen: answers[answers.count - 1] = frame.requestId &+ 1_000_000
        case .stall(let n, let ms) where n == seen: stallFor = ms
        default: break
        }
      }
      burst.removeAll()
      if case .reverseEachBurst = behaviour { answers.reverse() }
      var buffer = context.channel.allocator.buffer(capacity: answers.count * 18)
      for id in answers {
        buffer.writeResponseHeader(status: .success, methodIndex: 0, requestId: id, messageLength: 2)
        buffer.writeBytes([0x08, 0x01])
      }
      if let stallFor { heldUntil = .now() + .milliseconds(stallFor) }
      if let until = heldUntil, until > .now() {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let answer = buffer
        context.eventLoop.scheduleTask(deadline: until) {
          loopBound.value.writeAndFlush(NIOAny(answer), promise: nil)
        }
      } else {
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
      }
    }
  }
}

import Logging
import NIOCore

/// One connection's request loop: splits the byte stream into frames, answers each, matches
/// deferred answers by request id, bounds the deferred calls in flight, writes the answers to one
/// read burst as one buffer with one flush, and stops reading while the peer is not reading its
/// answers.
final class RPCServerHandler: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let dispatcher: EntitlementsDispatcher
  private let maximumPending: Int
  private let logger: Logger
  private var decoder: RequestFrameDecoder
  /// Received bytes not yet decoded (a partial frame).
  private var received: ByteBuffer?
  /// Answers of the current read burst, written at its end.
  private var output: ByteBuffer?
  private var pending = 0
  private var needsFlush = false
  private var readSuppressed = false
  private var isActive = true

  init(dispatcher: EntitlementsDispatcher, maximumPayloadLength: Int, maximumPending: Int, logger: Logger) {
    self.dispatcher = dispatcher
    self.decoder = RequestFrameDecoder(maximumPayloadLength: maximumPayloadLength)
    self.maximumPending = maximumPending
    self.logger = logger
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var bytes = unwrapInboundIn(data)
    if var buffered = received.take(), buffered.readableBytes > 0 {
      buffered.writeBuffer(&bytes)
      bytes = buffered
    }
    var out = output.take() ?? context.channel.allocator.buffer(capacity: 4_096)
    // Locals in the loop: each access to a stored property of a class costs a runtime
    // exclusivity check, per frame.
    var decoder = self.decoder
    while let request = decoder.decodeFrame(buffer: &bytes) {
      handle(request, into: &out, context: context)
    }
    self.decoder = decoder
    if bytes.readableBytes > 0 {
      bytes.discardReadBytes()
      received = bytes
    }
    output = out
  }

  private func handle(_ request: InboundRequest, into out: inout ByteBuffer, context: ChannelHandlerContext) {
    switch request {
    case .oversized(let methodIndex, let requestId, let length):
      logger.debug(
        "request payload over the limit",
        metadata: ["rpc.method_index": "\(methodIndex)", "rpc.message_length": "\(length)"])
      out.writeResponseFrame(status: .serviceFailed, methodIndex: methodIndex, requestId: requestId) { _ in }

    case .request(let frame):
      switch dispatcher.dispatch(methodIndex: frame.methodIndex, requestId: frame.requestId, payload: frame.payload, into: &out) {
      case .answered:
        break
      case .deferred(let work):
        guard pending < maximumPending else {
          out.writeResponseFrame(status: .tooManyPending, methodIndex: frame.methodIndex, requestId: frame.requestId) { _ in }
          return
        }
        pending += 1
        context.eventLoop.makeFutureWithTask(work).assumeIsolated().whenComplete { result in
          self.pending -= 1
          guard self.isActive else { return }
          var answer = context.channel.allocator.buffer(capacity: 256)
          switch result {
          case .success(let payload):
            answer.writeResponseFrame(status: .success, methodIndex: frame.methodIndex, requestId: frame.requestId) {
              $0.writeImmutableBuffer(payload)
            }
          case .failure(let error):
            self.logger.warning("deferred call failed", metadata: ["rpc.method_index": "\(frame.methodIndex)", "error": "\(error)"])
            answer.writeResponseFrame(status: .serviceFailed, methodIndex: frame.methodIndex, requestId: frame.requestId) { _ in }
          }
          context.write(self.wrapOutboundOut(answer), promise: nil)
          context.flush()
        }
      }
    }
  }

  func channelReadComplete(context: ChannelHandlerContext) {
    if let out = output.take(), out.readableBytes > 0 {
      context.write(wrapOutboundOut(out), promise: nil)
      context.flush()
    }
    context.fireChannelReadComplete()
  }

  func channelInactive(context: ChannelHandlerContext) {
    isActive = false
    context.fireChannelInactive()
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable, readSuppressed {
      readSuppressed = false
      context.read()
    }
    context.fireChannelWritabilityChanged()
  }

  func read(context: ChannelHandlerContext) {
    // Backpressure: a peer that does not read its answers stops being read from.
    if context.channel.isWritable {
      context.read()
    } else {
      readSuppressed = true
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    logger.debug("connection error", metadata: ["error": "\(error)"])
    context.close(promise: nil)
  }
}

@available(*, unavailable)
extension RPCServerHandler: Sendable {}

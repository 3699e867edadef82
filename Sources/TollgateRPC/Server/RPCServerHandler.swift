import Logging
import NIOCore

/// One connection's request loop: answers each decoded frame, matches answers by request id,
/// bounds the deferred calls in flight, flushes once per read burst, and stops reading while the
/// peer is not reading its answers.
final class RPCServerHandler: ChannelDuplexHandler {
  typealias InboundIn = InboundRequest
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let dispatcher: EntitlementsDispatcher
  private let maximumPending: Int
  private let logger: Logger
  private var pending = 0
  private var needsFlush = false
  private var readSuppressed = false
  private var isActive = true

  init(dispatcher: EntitlementsDispatcher, maximumPending: Int, logger: Logger) {
    self.dispatcher = dispatcher
    self.maximumPending = maximumPending
    self.logger = logger
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .oversized(let methodIndex, let requestId, let length):
      logger.debug(
        "request payload over the limit",
        metadata: ["rpc.method_index": "\(methodIndex)", "rpc.message_length": "\(length)"])
      respond(context: context, status: .serviceFailed, methodIndex: methodIndex, requestId: requestId, payload: nil)

    case .request(let frame):
      let outcome = dispatcher.dispatch(
        methodIndex: frame.methodIndex, payload: frame.payload, allocator: context.channel.allocator)
      switch outcome {
      case .immediate(let status, let payload):
        respond(context: context, status: status, methodIndex: frame.methodIndex, requestId: frame.requestId, payload: payload)
      case .deferred(let work):
        guard pending < maximumPending else {
          respond(context: context, status: .tooManyPending, methodIndex: frame.methodIndex, requestId: frame.requestId, payload: nil)
          return
        }
        pending += 1
        context.eventLoop.makeFutureWithTask(work).assumeIsolated().whenComplete { result in
          self.pending -= 1
          guard self.isActive else { return }
          switch result {
          case .success(let payload):
            self.respond(context: context, status: .success, methodIndex: frame.methodIndex, requestId: frame.requestId, payload: payload)
          case .failure(let error):
            self.logger.warning("deferred call failed", metadata: ["rpc.method_index": "\(frame.methodIndex)", "error": "\(error)"])
            self.respond(context: context, status: .serviceFailed, methodIndex: frame.methodIndex, requestId: frame.requestId, payload: nil)
          }
          self.flushIfNeeded(context: context)
        }
      }
    }
  }

  func channelReadComplete(context: ChannelHandlerContext) {
    flushIfNeeded(context: context)
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

  private func respond(context: ChannelHandlerContext, status: RPCStatus, methodIndex: UInt32, requestId: UInt32, payload: ByteBuffer?) {
    let length = payload?.readableBytes ?? 0
    var buffer = context.channel.allocator.buffer(capacity: ResponseFrame.headerLength + length)
    buffer.writeResponseHeader(status: status, methodIndex: methodIndex, requestId: requestId, messageLength: UInt32(length))
    if let payload { buffer.writeImmutableBuffer(payload) }
    context.write(wrapOutboundOut(buffer), promise: nil)
    needsFlush = true
  }

  private func flushIfNeeded(context: ChannelHandlerContext) {
    if needsFlush {
      needsFlush = false
      context.flush()
    }
  }
}

@available(*, unavailable)
extension RPCServerHandler: Sendable {}

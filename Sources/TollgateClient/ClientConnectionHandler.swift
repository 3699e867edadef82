import NIOCore
import TollgateWire

/// A call written to the client's channel: the frame and the promise its answer completes.
struct OutboundCall: Sendable {
  var methodIndex: UInt32
  var payload: ByteBuffer
  var promise: EventLoopPromise<ResponseFrame>
  var timeout: TimeAmount
}

/// Assigns request ids, matches answers to calls by request id, and fails what is left when the
/// connection closes or a call times out. Runs on the channel's event loop only.
final class ClientConnectionHandler: ChannelDuplexHandler {
  typealias InboundIn = ResponseFrame
  typealias OutboundIn = OutboundCall
  typealias OutboundOut = ByteBuffer

  private struct Pending {
    var promise: EventLoopPromise<ResponseFrame>
    var timeoutTask: Scheduled<Void>?
  }

  private var pending: [UInt32: Pending] = [:]
  private var nextRequestId: UInt32 = 1

  var inFlight: Int { pending.count }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    let call = unwrapOutboundIn(data)
    let requestId = nextRequestId
    nextRequestId &+= 1
    let timeoutTask = context.eventLoop.assumeIsolated().scheduleTask(in: call.timeout) {
      if let entry = self.pending.removeValue(forKey: requestId) {
        entry.promise.fail(
          TollgateClientError(
            code: .deadlineExceeded, message: "no answer within \(call.timeout.nanoseconds / 1_000_000) ms"))
      }
    }
    pending[requestId] = Pending(promise: call.promise, timeoutTask: timeoutTask)
    var buffer = context.channel.allocator.buffer(capacity: RequestFrame.headerLength + call.payload.readableBytes)
    buffer.writeRequestFrame(
      methodIndex: call.methodIndex, requestId: requestId, payload: call.payload.readableBytesView)
    context.write(wrapOutboundOut(buffer), promise: promise)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    guard let entry = pending.removeValue(forKey: frame.requestId) else { return }  // timed out already
    entry.timeoutTask?.cancel()
    entry.promise.succeed(frame)
  }

  func channelInactive(context: ChannelHandlerContext) {
    failAll(TollgateClientError(code: .connectionClosed, message: "connection closed"))
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    failAll(TollgateClientError(code: .invalidResponse, message: "broken response stream", cause: error))
    context.close(promise: nil)
  }

  private func failAll(_ error: TollgateClientError) {
    let entries = pending
    pending.removeAll()
    for entry in entries.values {
      entry.timeoutTask?.cancel()
      entry.promise.fail(error)
    }
  }
}

@available(*, unavailable)
extension ClientConnectionHandler: Sendable {}

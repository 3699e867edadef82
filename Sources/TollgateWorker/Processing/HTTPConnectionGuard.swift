import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Guards one connection of the worker's HTTP listeners, beside Hummingbird's idle timeout
/// (which closes a connection that has sent nothing for `worker.idleTimeoutMs`):
/// - a request head must be complete `headerTimeout` after its first bytes arrived: a client that
///   sends half a head and stalls (slowloris) is disconnected;
/// - a refused body (413) ends the connection once the response is written, instead of the rest of
///   the body being read and thrown away.
///
/// It sits after the HTTP decoder: bytes that did not yet make a head show up as a read burst
/// (`channelReadComplete`) with no request in progress.
final class HTTPConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let headerTimeout: TimeAmount
  /// Heads read whose response has not ended yet.
  private var requestsInProgress = 0
  private var headDeadline: Scheduled<Void>?
  private var closeAfterResponse = false

  init(headerTimeout: TimeAmount) {
    self.headerTimeout = headerTimeout
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if case .head = unwrapInboundIn(data) {
      requestsInProgress += 1
      cancelDeadline()
    }
    context.fireChannelRead(data)
  }

  func channelReadComplete(context: ChannelHandlerContext) {
    // Bytes arrived and no request is in progress: they are part of a head not complete yet.
    if requestsInProgress == 0, headDeadline == nil, context.channel.isActive {
      headDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: headerTimeout) {
        context.close(promise: nil)
      }
    }
    context.fireChannelReadComplete()
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .head(var response) where response.status == .contentTooLarge:
      closeAfterResponse = true
      response.headerFields[.connection] = "close"
      context.write(wrapOutboundOut(.head(response)), promise: promise)
    case .end where closeAfterResponse:
      context.writeAndFlush(data, promise: promise)
      context.close(promise: nil)
    case .end:
      requestsInProgress = max(0, requestsInProgress - 1)
      context.write(data, promise: promise)
    default:
      context.write(data, promise: promise)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    cancelDeadline()
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    cancelDeadline()
  }

  private func cancelDeadline() {
    headDeadline?.cancel()
    headDeadline = nil
  }
}

@available(*, unavailable)
extension HTTPConnectionGuard: Sendable {}

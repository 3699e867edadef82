import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Guards one connection of an HTTP listener (`HTTPListenerLimits`), beside Hummingbird's idle
/// timeout (which closes a connection that has sent nothing for the listener's `idleTimeout`, the
/// worker's `worker.idleTimeoutMs`):
/// - a connection beyond the listener's `maxConnections` is closed as soon as it is active,
///   before anything of it is read;
/// - a request head must be complete `headerTimeout` after its first bytes arrived: a client that
///   sends half a head and stalls (slowloris) is disconnected; with `firstHeadTimeout` (the HTTP
///   door), the first head is also due that long after the connection, so a socket that sends
///   nothing does not hold a slot until the idle timeout;
/// - the whole request, head and body, must be complete `requestTimeout` after its first bytes,
///   and its body must keep arriving at `minBodyBytesPerSecond` on average once `bodyRateGrace`
///   has passed: a body that never ends or trickles is answered 408 (when nothing else was
///   answered on the connection yet) and the connection closed;
/// - a refused body (413), or any response a handler marks `Connection: close`, ends the
///   connection once the response is written, instead of the rest of the body being read and
///   thrown away.
///
/// It sits after the HTTP decoder: bytes that did not yet make a head show up as a read burst
/// (`channelReadComplete`) with no request part in it and no request open.
final class HTTPConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let limits: HTTPListenerLimits
  private var holdsSlot = false
  /// A head was read and its end not yet.
  private var requestOpen = false
  /// A request part was read since the last `channelReadComplete`.
  private var partsInBurst = false
  private var headsRead = 0
  private var responsesEnded = 0
  /// A response head was written and its end not yet.
  private var responseOpen = false
  private var headDeadline: Scheduled<Void>?
  private var requestDeadline: Scheduled<Void>?
  private var rateCheck: Scheduled<Void>?
  private var unprovenDeadline: Scheduled<Void>?
  private var bodyStart = NIODeadline.now()
  private var bodyBytes = 0
  private var closeAfterResponse = false
  /// The guard answered 408 itself: whatever the handlers write after it is dropped.
  private var answered = false

  init(limits: HTTPListenerLimits) {
    self.limits = limits
  }

  func channelActive(context: ChannelHandlerContext) {
    context.fireChannelActive()
    guard limits.takeSlot() else {
      limits.count(.overCapacity)
      context.close(promise: nil)
      return
    }
    holdsSlot = true
    // A door's listener: the first head is due `firstHeadTimeout` after the connection, bytes or not.
    if let timeout = limits.unprovenTimeout {
      unprovenDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
        self.unprovenDeadline = nil
        self.refuse(context: context, because: .unproven)
      }
    }
    if let timeout = limits.firstHeadTimeout {
      headDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
        self.limits.count(.headerTimeout)
        context.close(promise: nil)
      }
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    partsInBurst = true
    switch unwrapInboundIn(data) {
    case .head:
      headsRead += 1
      requestOpen = true
      cancel(&headDeadline)
      if requestDeadline == nil { startRequestDeadline(context: context) }
      bodyStart = .now()
      bodyBytes = 0
      scheduleRateCheck(context: context)
    case .body(let bytes):
      bodyBytes += bytes.readableBytes
    case .end:
      requestOpen = false
      cancel(&requestDeadline)
      cancel(&rateCheck)
    }
    if !answered { context.fireChannelRead(data) }
  }

  func channelReadComplete(context: ChannelHandlerContext) {
    // Bytes arrived and made no request part, with no request open: a head not complete yet.
    if !partsInBurst, !requestOpen, headDeadline == nil, context.channel.isActive, !answered {
      let loop = context.eventLoop.assumeIsolated()
      headDeadline = loop.scheduleTask(in: limits.headerTimeout) {
        self.limits.count(.headerTimeout)
        context.close(promise: nil)
      }
      if requestDeadline == nil { startRequestDeadline(context: context) }
    }
    partsInBurst = false
    context.fireChannelReadComplete()
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    if answered {
      promise?.fail(ChannelError.ioOnClosedChannel)
      return
    }
    switch unwrapOutboundIn(data) {
    case .head(var response):
      responseOpen = true
      // A handler that answers before reading a body (the HTTP door's refused callers) says
      // `Connection: close`: the body is then not read either.
      if response.status == .contentTooLarge || response.headerFields[.connection] == "close" {
        closeAfterResponse = true
        response.headerFields[.connection] = "close"
      }
      context.write(wrapOutboundOut(.head(response)), promise: promise)
    case .end:
      responseOpen = false
      responsesEnded += 1
      if closeAfterResponse {
        context.writeAndFlush(data, promise: promise)
        context.close(promise: nil)
      } else {
        context.write(data, promise: promise)
      }
    default:
      context.write(data, promise: promise)
    }
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    guard event is HTTPConnectionProven else {
      context.fireUserInboundEventTriggered(event)
      return
    }
    cancel(&unprovenDeadline)
  }

  func channelInactive(context: ChannelHandlerContext) {
    release()
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    release()
  }

  // MARK: Deadlines

  private func startRequestDeadline(context: ChannelHandlerContext) {
    requestDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: limits.requestTimeout) {
      self.requestDeadline = nil
      self.refuse(context: context, because: .requestTimeout)
    }
  }

  /// Looks again when the body would fall below the minimum rate if nothing more arrived, and
  /// no sooner than a second from now: a body kept just at the rate costs a timer a second, not
  /// one per byte.
  private func scheduleRateCheck(context: ChannelHandlerContext) {
    guard limits.minBodyBytesPerSecond > 0 else { return }
    let at = max(limits.bodyRateDeadline(start: bodyStart, bytes: bodyBytes), .now() + .seconds(1))
    rateCheck = context.eventLoop.assumeIsolated().scheduleTask(deadline: at) {
      self.rateCheck = nil
      guard self.requestOpen else { return }
      if self.limits.bodyRateDeadline(start: self.bodyStart, bytes: self.bodyBytes) <= .now() {
        self.refuse(context: context, because: .slowBody)
      } else {
        self.scheduleRateCheck(context: context)
      }
    }
  }

  /// Ends the connection; answers 408 first when the open request is the only one unanswered
  /// and no response is being written (else a 408 would be taken as an earlier request's answer).
  private func refuse(context: ChannelHandlerContext, because cut: HTTPListenerLimits.Cut) {
    guard context.channel.isActive, !answered else { return }
    limits.count(cut)
    cancelDeadlines()
    if requestOpen, !responseOpen, responsesEnded == headsRead - 1 {
      var response = HTTPResponse(status: .requestTimeout)
      response.headerFields[.connection] = "close"
      response.headerFields[.contentLength] = "0"
      context.write(wrapOutboundOut(.head(response)), promise: nil)
      context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
    answered = true
    context.close(promise: nil)
  }

  private func release() {
    cancelDeadlines()
    if holdsSlot {
      holdsSlot = false
      limits.giveSlot()
    }
  }

  private func cancelDeadlines() {
    cancel(&headDeadline)
    cancel(&requestDeadline)
    cancel(&rateCheck)
    cancel(&unprovenDeadline)
  }

  private func cancel(_ scheduled: inout Scheduled<Void>?) {
    scheduled?.cancel()
    scheduled = nil
  }
}

@available(*, unavailable)
extension HTTPConnectionGuard: Sendable {}

import CTollgateNet
import NIOCore
import TollgateWire

/// One client connection's state, owned by its loop's thread: the frame decoder, received bytes of
/// a frame not complete yet, answers the socket has not taken yet, and the deferred calls in flight.
final class ServerConnection {
  let token: ConnectionToken
  var decoder: RequestFrameDecoder
  /// Received bytes not decoded yet (a partial frame); nil when a read ended on a frame boundary.
  var partial: ByteBuffer?
  /// Answers the socket would not take yet; nil when everything was written.
  var unsent: ByteBuffer?
  /// Deferred calls (SubmitPurchase) not answered yet.
  var pending = 0
  /// False while the peer is not reading its answers (backpressure) and during shutdown.
  var reading = true
  /// What epoll watches for now (`tg_net_readable`/`tg_net_writable`); a new connection is
  /// registered for reading.
  var watched = tg_net_readable

  var fd: Int32 { token.fd }

  init(token: ConnectionToken, maximumPayloadLength: Int) {
    self.token = token
    self.decoder = RequestFrameDecoder(maximumPayloadLength: maximumPayloadLength)
  }

  /// Nothing left to do for it: no call in flight, nothing left to write.
  var isIdle: Bool { pending == 0 && unsent == nil }
}

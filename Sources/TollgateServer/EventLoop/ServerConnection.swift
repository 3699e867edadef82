import CTollgateNet
import NIOCore
import TollgateWire

/// One client connection's state, owned by its loop's thread: the frame decoder, received bytes of
/// a frame not complete yet, answers the socket has not taken yet, the deferred calls in flight,
/// its caller and its timers.
final class ServerConnection {
  let token: ConnectionToken
  var decoder: RequestFrameDecoder
  /// Received bytes not decoded yet (a partial frame); nil when a read ended on a frame boundary.
  var partial: ByteBuffer?
  /// The bytes `partial` is counted for in the server-wide bound.
  var partialCharge = 0
  /// When the current partial frame began (monotonic ns); nil without one.
  var partialSinceNs: UInt64?
  /// When bytes last arrived or an answer was last produced (monotonic ns).
  var lastActiveNs: UInt64
  /// Answers the socket would not take yet; nil when everything was written.
  var unsent: ByteBuffer?
  /// Deferred calls (SubmitPurchase, GetSubmission) not answered yet.
  var pending = 0
  /// False while the peer is not reading its answers (backpressure) and during shutdown.
  var reading = true
  /// What epoll watches for now (`tg_net_readable`/`tg_net_writable`); a new connection is
  /// registered for reading.
  var watched = tg_net_readable
  /// Who calls on this connection.
  var caller: ConnectionCaller
  /// The connection's TLS (a `tg_tls`), or nil in plaintext; freed when the connection closes.
  let tls: OpaquePointer?
  /// A TLS read needs the socket writable first (a handshake message the socket did not take).
  var tlsReadWantsWrite = false
  /// When the connection was accepted (monotonic ns).
  let openedNs: UInt64
  /// The TLS handshake has finished (always true in plaintext); the sweep asks OpenSSL until it has.
  var handshakeDone: Bool
  /// Since when answers have waited for a socket that took none of them (monotonic ns); nil while
  /// nothing waits.
  var writeStalledSinceNs: UInt64?
  /// Since when the connection has had no authenticated caller while callers are configured
  /// (monotonic ns); nil when it has one (or on a server without callers).
  var unauthenticatedSinceNs: UInt64?
  /// Something was answered on it at least once.
  var answered = false

  var fd: Int32 { token.fd }

  init(token: ConnectionToken, maximumPayloadLength: Int, caller: ConnectionCaller, tls: OpaquePointer?, nowNs: UInt64)
  {
    self.token = token
    self.tls = tls
    self.decoder = RequestFrameDecoder(maximumPayloadLength: maximumPayloadLength)
    self.caller = caller
    self.lastActiveNs = nowNs
    self.openedNs = nowNs
    self.handshakeDone = tls == nil
    self.unauthenticatedSinceNs = caller.identity == nil ? nowNs : nil
  }

  /// Nothing left to do for it: no call in flight, nothing left to write.
  var isIdle: Bool { pending == 0 && unsent == nil }

  /// Has not proven itself yet, so a newer connection may take its slot when slots run short:
  /// nothing answered yet (a TLS handshake or a first frame under way, or nothing sent at all), or
  /// no authenticated caller while callers are configured.
  var isUnproven: Bool { !answered || caller.identity == nil }
}

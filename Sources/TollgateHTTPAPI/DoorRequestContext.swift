import Hummingbird
import NIOCore
import TollgateCallers
import TollgateCore

/// One request on the HTTP door: where it came from (the source the failed-authentication budget
/// counts), and who the caller is once `CallerMiddleware` has identified it.
public struct DoorRequestContext: RequestContext {
  public var coreContext: CoreRequestContextStorage
  /// The peer's address as the gate counts it; `.unknown` when it could not be read.
  public let source: PeerSource
  /// Set by `CallerMiddleware` before the route's handler runs; nil only on routes that need no
  /// caller (`/healthz`).
  public var caller: CallerIdentity?
  /// The connection, told once it has proven a caller (`HTTPConnectionProven`).
  let channel: any Channel
  /// Set by `RequestIDMiddleware` before anything else runs: the request's id (`RequestID`).
  public var requestId: TollgateCore.RequestID?

  public init(source: ApplicationRequestContextSource) {
    self.coreContext = .init(source: source)
    self.source = PeerSource(source.channel.remoteAddress)
    self.channel = source.channel
  }

  /// The caller, for a handler behind `CallerMiddleware` (which sets it, `.anyone` on a server
  /// without callers); a route registered without it is a bug, answered 500, never `.anyone`.
  func identity() throws(ProblemDocument) -> CallerIdentity {
    guard let caller else { throw ProblemDocument.internalError }
    return caller
  }
}

extension PeerSource {
  /// The source of a TCP peer (`Channel.remoteAddress`): its IPv4 address, or its IPv6 address's
  /// /64 (an IPv4-mapped one as IPv4), as the fast port counts a socket's peer.
  public init(_ address: SocketAddress?) {
    guard let address, let ip = address.ipAddress, let source = PeerSource(ipAddress: ip) else {
      self = .unknown
      return
    }
    self = source
  }
}

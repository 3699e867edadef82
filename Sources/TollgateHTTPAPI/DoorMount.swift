import HTTPTypes
import Hummingbird
import Logging
import TollgateCallers
import TollgateHTTPListener

/// Pages another module answers on the door under a path prefix (the support console's
/// `/console`, issue 29), registered beside `HTTPRoutes` but outside `CallerMiddleware`: they
/// check their callers themselves (the console: its sessions, signed in through the same
/// `CallerGate`). The door knows nothing else of them, so it depends on no such module; the
/// executable builds the mount.
public struct DoorMount: Sendable {
  /// `/console`: the mount answers this path and every path below it, for GET, HEAD and POST.
  public var prefix: String
  public var respond: @Sendable (_ request: Request, _ context: DoorMountContext) async -> Response

  public init(
    prefix: String, respond: @escaping @Sendable (_ request: Request, _ context: DoorMountContext) async -> Response
  ) {
    self.prefix = prefix
    self.respond = respond
  }

  /// Registers the mount's paths on the door's router.
  func register(on router: Router<DoorRequestContext>, isTLS: Bool) {
    let respond = self.respond
    let handler: @Sendable (Request, DoorRequestContext) async throws -> Response = { request, context in
      let channel = context.channel
      return await respond(
        request,
        DoorMountContext(
          source: context.source, isTLS: isTLS || Self.forwardedOverTLS(request), logger: context.logger,
          proven: { channel.pipeline.fireUserInboundEventTriggered(HTTPConnectionProven()) }))
    }
    for path in [prefix, prefix + "/**"] {
      router.get(RouterPath(path), use: handler)
      router.head(RouterPath(path), use: handler)
      router.post(RouterPath(path), use: handler)
    }
  }

  static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!

  /// Whether a TLS-terminating proxy in front says the browser came over HTTPS. A client that sends
  /// it falsely only makes its own cookies `Secure`: stricter, never looser.
  static func forwardedOverTLS(_ request: Request) -> Bool {
    request.headers[forwardedProto]?.lowercased() == "https"
  }
}

/// What a mount learns of a request's connection.
public struct DoorMountContext: Sendable {
  /// The peer as the gate counts failed keys.
  public var source: PeerSource
  /// Whether the browser reached the door over TLS: the door speaks TLS, or a proxy in front of
  /// it terminated TLS and says so (`X-Forwarded-Proto: https`). A session cookie is then `Secure`.
  public var isTLS: Bool
  public var logger: Logger
  /// Tells the connection guard this connection proved a caller (as `CallerMiddleware` does for
  /// an accepted key), so the unproven-connection deadline no longer applies to it.
  public var proven: @Sendable () -> Void
}

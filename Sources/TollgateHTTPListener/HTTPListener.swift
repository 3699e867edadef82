import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore

/// Builds and runs an HTTP/1.1 listener on Hummingbird with its connections guarded
/// (`HTTPConnectionGuard`): a connection cap, the head and whole-request deadlines and a minimum
/// body rate (`HTTPListenerLimits`), beside Hummingbird's idle timeout. The worker's two listeners
/// are built here; so is any other HTTP listener that must hold up against strangers.
///
/// ```swift
/// let bound = BoundPort()
/// let app = HTTPListener.application(
///   router: router, address: address, limits: limits, idleTimeout: .seconds(60), bound: bound, logger: logger)
/// try await HTTPListener.run(app, key: "worker.listen", address: address, bound: bound)
/// ```
public enum HTTPListener {
  /// An application answering `router` on `address`; `bound` learns the port once it listens.
  public static func application<Context: RequestContext>(
    router: Router<Context>, address: ListenAddress, limits: HTTPListenerLimits, idleTimeout: TimeAmount,
    bound: BoundPort, logger: Logger
  ) -> Application<RouterResponder<Context>> where Context.Source == ApplicationRequestContextSource {
    application(
      router: router, server: .http1(configuration: http1(limits: limits, idleTimeout: idleTimeout)),
      address: address, bound: bound, logger: logger)
  }

  /// The same application speaking TLS only (HummingbirdTLS), with `tls`'s files read now
  /// (`DoorTLS.serverConfiguration`) and ALPN `http/1.1`. The guard sits behind the TLS handler
  /// and starts its deadlines when the connection opens, so with `firstHeadTimeout` a handshake
  /// that never finishes is cut with the first head that never comes.
  /// - Throws: `DoorTLSError` naming the key under `key` (`service.http.tls`) and the file.
  public static func application<Context: RequestContext>(
    router: Router<Context>, address: ListenAddress, tls: DoorTLS, key: String, limits: HTTPListenerLimits,
    idleTimeout: TimeAmount, bound: BoundPort, logger: Logger
  ) throws(DoorTLSError) -> Application<RouterResponder<Context>>
  where Context.Source == ApplicationRequestContextSource {
    var configuration = try tls.serverConfiguration(key: key)
    configuration.applicationProtocols = ["http/1.1"]
    let server: HTTPServerBuilder
    do {
      server = try .tls(
        .http1(configuration: http1(limits: limits, idleTimeout: idleTimeout)), tlsConfiguration: configuration)
    } catch {
      throw DoorTLSError(key: key, file: tls.certificateFile, problem: "cannot make a TLS context: \(error)")
    }
    return application(router: router, server: server, address: address, bound: bound, logger: logger)
  }

  private static func http1(limits: HTTPListenerLimits, idleTimeout: TimeAmount) -> HTTP1Channel.Configuration {
    HTTP1Channel.Configuration(
      additionalChannelHandlers: [HTTPConnectionGuard(limits: limits)], idleTimeout: idleTimeout)
  }

  private static func application<Context: RequestContext>(
    router: Router<Context>, server: HTTPServerBuilder, address: ListenAddress, bound: BoundPort, logger: Logger
  ) -> Application<RouterResponder<Context>> where Context.Source == ApplicationRequestContextSource {
    Application(
      router: router, server: server, configuration: .init(address: .hostname(address.host, port: address.port)),
      onServerRunning: { channel in await bound.set(channel.localAddress?.port ?? 0) }, logger: logger)
  }

  /// Runs one listener; a failure before it listens (the address is taken, the host does not
  /// resolve) is an error naming the config key and the address, and sets `bound` to 0 so that
  /// whoever waits for the port learns it will not come.
  public static func run<Context: RequestContext>(
    _ application: Application<RouterResponder<Context>>, key: String, address: ListenAddress, bound: BoundPort
  ) async throws where Context.Source == ApplicationRequestContextSource {
    do {
      try await application.run()
    } catch {
      guard await bound.isSet else {
        await bound.set(0)
        throw HTTPListenerError(key: key, address: address, cause: error)
      }
      throw error
    }
  }
}

import Logging
import TollgateServer

/// Serves `handler` with `config` on `listeners` (loopback TCP by default) while `body` runs,
/// then closes the server, also when `body` throws. The handler is released first unless the test
/// holds its answers back (`releasing: false`; it is released before the server closes then).
func withRPCServer(
  listeners: [RPCListenAddress] = [.tcp(host: "127.0.0.1", port: 0)], config: RPCServer.Config = .defaults,
  handler: FakeEntitlementsHandler = FakeEntitlementsHandler(), releasing: Bool = true, logger: Logger,
  _ body: (RPCServer, FakeEntitlementsHandler) async throws -> Void
) async throws {
  if releasing { handler.release() }
  let server = try RPCServer.bind(listeners: listeners, config: config, handler: handler, logger: logger)
  async let serving: Void = server.run()
  do {
    try await body(server, handler)
  } catch {
    handler.release()
    try await server.close()
    throw error
  }
  handler.release()
  try await server.close()
  try await serving
}

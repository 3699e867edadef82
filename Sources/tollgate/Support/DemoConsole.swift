import Foundation
import Logging
import TollgateCallers
import TollgateConsole
import TollgateDemo
import TollgateHTTPAPI
import TollgateHTTPListener
import TollgateServer

/// The demo's support console (issue 29): the HTTP door on loopback with `/console`, answering
/// through the demo service's handler (its admin calls on the worker's storage), with one caller,
/// `demo-admin` (admin scope), whose fresh key is written to `DATA/admin-key` (owner-only).
struct DemoConsole: Sendable {
  static let callerName = "demo-admin"

  let door: HTTPDoor
  /// The admin caller's key (also in `keyFile`).
  let key: String
  let keyFile: String

  /// Builds the door on `127.0.0.1:port` (0: any free port) and writes the key file.
  init(stack: LocalStack, port: Int, directory: String, logger: Logger) throws {
    key = Self.newKey()
    keyFile = directory + "/admin-key"
    guard
      FileManager.default.createFile(
        atPath: keyFile, contents: Data((key + "\n").utf8), attributes: [.posixPermissions: 0o600])
    else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: keyFile]) }
    var rpc = RPCServer.Config.defaults
    rpc.access = .callers(
      CallerRegistry([CallerKey(name: Self.callerName, keySha256: CallerKey.digest(of: key), scopes: .admin)]))
    let gate = rpc.makeGate()
    let server = stack.server
    let desk = stack.desk
    let console = SupportConsole(
      gate: gate, backend: ConsoleBackend(admin: { server.responder.admin }, desk: { desk }), logger: logger)
    var config = HTTPDoor.Config(host: "127.0.0.1", port: port)
    config.mounts = [ServeConsole.mount(console)]
    door = try HTTPDoor(config: config, handler: server.responder, gate: gate, logger: logger)
  }

  /// A caller key as `tollgate callers new` makes them: `tgk_` and 32 random bytes, base64url.
  static func newKey() -> String {
    var generator = SystemRandomNumberGenerator()
    let secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    return "tgk_"
      + Data(secret).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }
}

import TollgateGRPC
import TollgateHTTPListener

// `service.grpc.tls` and `service.http.tls` are the doors' one TLS settings type, `DoorTLS`
// (TollgateHTTPListener): `certificateFile`, `privateKeyFile`, and `clientCAFile` for mutual TLS,
// the same files as `service.tls` (without a `listen`: the door's one listener then speaks only TLS).
//
// ```json
// { "service": { "grpc": { "listen": "0.0.0.0:7705",
//   "tls": { "certificateFile": "server.pem", "privateKeyFile": "server.key", "clientCAFile": "ca.pem" } } } }
// ```

extension GRPCDoorSettings {
  /// The gRPC door's configuration on `address` (`service.grpc`, docs/grpc.md), with the largest
  /// request message the fast port's (`service.maxMessageBytes`).
  func config(address: ListenAddress, maximumPayloadLength: Int) -> GRPCDoor.Config {
    var config = GRPCDoor.Config(address: address)
    config.maximumPayloadLength = maximumPayloadLength
    if let value = maxConnections { config.maximumConnections = value }
    if let value = maxConcurrentStreams { config.maximumConcurrentStreams = value }
    if let value = idleTimeoutMs { config.idleTimeout = .milliseconds(Int64(value)) }
    if let value = handshakeTimeoutMs { config.handshakeTimeout = .milliseconds(Int64(value)) }
    config.tls = tls
    return config
  }
}

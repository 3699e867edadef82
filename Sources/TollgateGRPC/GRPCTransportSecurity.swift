import GRPCNIOTransportHTTP2Posix
import TollgateHTTPListener

/// TLS on the gRPC door's listener (`service.grpc.tls`): the doors' one TLS settings type,
/// `DoorTLS`, checked with the HTTP door's rules (`DoorTLS.check(key:)`: every file read when the
/// door is made, the key matched to the certificate). grpc-swift-nio-transport makes its own
/// SwiftNIO SSL configuration from the files: TLS 1.2 or newer, ALPN `h2`, and under TLS 1.2
/// SwiftNIO SSL's default suites, which the transport gives no way to narrow (docs/grpc.md).
extension DoorTLS {
  /// The transport's security for these files; with `clientCAFile`, a client certificate that
  /// chains to those CAs is required.
  var transportSecurity: HTTP2ServerTransport.Posix.TransportSecurity {
    let chain: [TLSConfig.CertificateSource] = [.file(path: certificateFile, format: .pem)]
    let key: TLSConfig.PrivateKeySource = .file(path: privateKeyFile, format: .pem)
    guard let clientCAFile else { return .tls(certificateChain: chain, privateKey: key) }
    return .mTLS(certificateChain: chain, privateKey: key) {
      $0.trustRoots = .certificates([.file(path: clientCAFile, format: .pem)])
    }
  }
}

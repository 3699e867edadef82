import GRPCNIOTransportHTTP2Posix
import NIOSSL

/// TLS on the gRPC door's listener (`service.grpc.tls`): the server's certificate chain and key,
/// PEM files, and with `clientCAFile` mutual TLS, where a client must present a certificate that
/// chains to those CAs. TLS 1.2 or newer, ALPN `h2` (grpc-swift-nio-transport's server defaults).
public struct GRPCDoorTLS: Sendable, Hashable {
  public var certificateFile: String
  public var privateKeyFile: String
  /// Mutual TLS: the CAs a client's certificate must chain to. Nil: no client certificate asked.
  public var clientCAFile: String?

  public init(certificateFile: String, privateKeyFile: String, clientCAFile: String? = nil) {
    self.certificateFile = certificateFile
    self.privateKeyFile = privateKeyFile
    self.clientCAFile = clientCAFile
  }

  /// Reads every file once, so that a door with a missing or unreadable one fails when it is made,
  /// naming the file, and not when it first listens.
  func check() throws(GRPCDoorError) {
    do {
      guard !(try NIOSSLCertificate.fromPEMFile(certificateFile)).isEmpty else {
        throw GRPCDoorError(message: "no certificate in the file")
      }
    } catch {
      throw GRPCDoorError(message: "service.grpc.tls.certificateFile \(certificateFile): \(error)")
    }
    do {
      _ = try NIOSSLPrivateKey(file: privateKeyFile, format: .pem)
    } catch {
      throw GRPCDoorError(message: "service.grpc.tls.privateKeyFile \(privateKeyFile): \(error)")
    }
    guard let clientCAFile else { return }
    do {
      guard !(try NIOSSLCertificate.fromPEMFile(clientCAFile)).isEmpty else {
        throw GRPCDoorError(message: "no certificate in the file")
      }
    } catch {
      throw GRPCDoorError(message: "service.grpc.tls.clientCAFile \(clientCAFile): \(error)")
    }
  }

  /// The transport's security for these files.
  var transportSecurity: HTTP2ServerTransport.Posix.TransportSecurity {
    let chain: [TLSConfig.CertificateSource] = [.file(path: certificateFile, format: .pem)]
    let key: TLSConfig.PrivateKeySource = .file(path: privateKeyFile, format: .pem)
    guard let clientCAFile else { return .tls(certificateChain: chain, privateKey: key) }
    return .mTLS(certificateChain: chain, privateKey: key) {
      $0.trustRoots = .certificates([.file(path: clientCAFile, format: .pem)])
    }
  }
}

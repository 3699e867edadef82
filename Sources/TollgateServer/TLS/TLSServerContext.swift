import CTollgateCrypto

/// A TLS listener's certificate, key and (for mutual TLS) the CA its clients' certificates must
/// chain to, loaded once into OpenSSL.
// @unchecked Sendable: the SSL_CTX is only read after it is made (every loop makes its
// connections' SSL objects from it, which OpenSSL allows concurrently) and freed in deinit.
public final class TLSServerContext: @unchecked Sendable {
  let context: OpaquePointer
  /// Clients must present a certificate (mutual TLS).
  public let requiresClientCertificates: Bool

  /// Loads PEM files; throws `TLSSetupError` naming the file that cannot be used.
  public init(certificateFile: String, privateKeyFile: String, clientCAFile: String? = nil) throws(TLSSetupError) {
    var message = [CChar](repeating: 0, count: 512)
    guard
      let context = tg_tls_server_context_new(certificateFile, privateKeyFile, clientCAFile, &message, message.count)
    else {
      throw TLSSetupError(
        description: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    self.context = context
    self.requiresClientCertificates = clientCAFile != nil
  }

  deinit { tg_tls_context_free(context) }

  /// A TLS connection on an accepted socket; nil when OpenSSL cannot make one.
  func connection(fd: Int32) -> OpaquePointer? { tg_tls_new(context, fd) }
}

/// A TLS listener's files cannot be used.
public struct TLSSetupError: Error, Sendable, Hashable, CustomStringConvertible {
  public var description: String
}

/// A listener: where, and with TLS or in plaintext.
public struct RPCListener: Sendable {
  public var address: RPCListenAddress
  public var tls: TLSServerContext?

  public init(_ address: RPCListenAddress, tls: TLSServerContext? = nil) {
    self.address = address
    self.tls = tls
  }
}

/// A listening socket the loops accept connections from.
struct ListeningSocket: Sendable {
  let fd: Int32
  let address: RPCListenAddress
  /// Connections accepted here speak TLS.
  let tls: TLSServerContext?
}

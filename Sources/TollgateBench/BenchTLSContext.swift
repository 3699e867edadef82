import CTollgateCrypto

/// The load generator's TLS client context (OpenSSL, through CTollgateCrypto): TLS 1.2+, the
/// server's certificate verified against a CA file and a name, as any honest client does.
// @unchecked Sendable: the SSL_CTX is only read after it is made (each load thread makes its
// connections' SSL objects from it, which OpenSSL allows concurrently) and freed in deinit.
final class BenchTLSContext: @unchecked Sendable {
  private let context: OpaquePointer
  let serverName: String

  init(caFile: String, serverName: String) throws(BenchError) {
    var message = [CChar](repeating: 0, count: 512)
    guard let context = tg_tls_client_context_new(caFile, &message, message.count) else {
      throw .tls(Self.text(message))
    }
    self.context = context
    self.serverName = serverName
  }

  deinit { tg_tls_context_free(context) }

  /// A TLS connection on the connected socket `fd` (which it does not own); nil when OpenSSL cannot
  /// make one or the server name is unusable.
  func connection(fd: Int32) -> OpaquePointer? { tg_tls_client_new(context, fd, serverName) }

  /// A TLS connection like `connection(fd:)` for `serverName` instead (one server of several).
  func connection(fd: Int32, serverName: String) -> OpaquePointer? { tg_tls_client_new(context, fd, serverName) }

  static func text(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

import CTollgateCrypto

/// Calls into the shim and turns its status into a `CryptoError`.
enum Shim {
  static func check(
    _ status: tg_status, _ context: @autoclosure () -> String, parse: CryptoError.Code = .invalidArgument
  )
    throws(CryptoError)
  {
    guard status != TG_OK else { return }
    throw error(status, context(), parse: parse)
  }

  static func error(_ status: tg_status, _ context: String, parse: CryptoError.Code = .invalidArgument) -> CryptoError {
    let code: CryptoError.Code
    switch status {
    case TG_ERR_PARSE: code = parse
    case TG_ERR_SIGNATURE: code = .signatureMismatch
    case TG_ERR_CHAIN: code = .untrustedChain
    case TG_ERR_LEAF_OID: code = .missingLeafExtension
    case TG_ERR_INTERMEDIATE_OID: code = .missingIntermediateExtension
    case TG_ERR_KEY_TYPE: code = .wrongKeyType
    case TG_ERR_ARGUMENT: code = .invalidArgument
    default: code = .internalFailure
    }
    return CryptoError(code: code, message: context)
  }

  /// Runs `body` with a fresh `tg_buffer` and returns its bytes, freeing it.
  static func buffer(
    _ context: @autoclosure () -> String, parse: CryptoError.Code = .invalidArgument,
    _ body: (UnsafeMutablePointer<tg_buffer>) -> tg_status
  ) throws(CryptoError) -> [UInt8] {
    var buffer = tg_buffer(data: nil, len: 0)
    defer { tg_buffer_free(&buffer) }
    try check(body(&buffer), context(), parse: parse)
    guard let data = buffer.data else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: buffer.len))
  }
}

/// Owns one `EVP_PKEY`.
///
/// `@unchecked Sendable`: the key is never mutated after creation and OpenSSL 3 allows
/// concurrent signing/verification with one `EVP_PKEY`; it is freed once, in `deinit`.
final class KeyHandle: @unchecked Sendable {
  let pointer: OpaquePointer

  init(_ pointer: OpaquePointer) { self.pointer = pointer }

  deinit { tg_pkey_free(pointer) }

  static func parsePrivate(_ bytes: [UInt8]) throws(CryptoError) -> KeyHandle {
    var key: OpaquePointer?
    let status = bytes.withUnsafeBufferPointer { tg_pkey_parse_private($0.baseAddress, $0.count, &key) }
    try Shim.check(status, "cannot parse private key", parse: .malformedKey)
    guard let key else { throw CryptoError(code: .internalFailure, message: "no key returned") }
    return KeyHandle(key)
  }

  static func parsePublic(_ bytes: [UInt8]) throws(CryptoError) -> KeyHandle {
    var key: OpaquePointer?
    let status = bytes.withUnsafeBufferPointer { tg_pkey_parse_public($0.baseAddress, $0.count, &key) }
    try Shim.check(status, "cannot parse public key", parse: .malformedKey)
    guard let key else { throw CryptoError(code: .internalFailure, message: "no key returned") }
    return KeyHandle(key)
  }

  var type: tg_key_type { tg_pkey_type(pointer) }

  func publicKeyDER() throws(CryptoError) -> [UInt8] {
    try Shim.buffer("cannot encode public key") { tg_pkey_public_der(pointer, $0) }
  }
}

/// Owns one `X509`.
///
/// `@unchecked Sendable`: the certificate is never mutated after parsing, so concurrent reads
/// and use as a trust anchor are safe; it is freed once, in `deinit`.
final class CertificateHandle: @unchecked Sendable {
  let pointer: OpaquePointer

  init(_ pointer: OpaquePointer) { self.pointer = pointer }

  deinit { tg_cert_free(pointer) }
}

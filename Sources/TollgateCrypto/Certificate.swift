import CTollgateCrypto

/// A parsed X.509 certificate with its DER bytes. Parse trust anchors once and share them.
public struct Certificate: Sendable {
  public let der: [UInt8]
  let handle: CertificateHandle

  /// Parses one DER certificate (trailing bytes are refused).
  public init(der: [UInt8]) throws(CryptoError) {
    var cert: OpaquePointer?
    let status = der.withUnsafeBufferPointer { tg_cert_parse($0.baseAddress, $0.count, &cert) }
    try Shim.check(status, "not a DER X.509 certificate", parse: .malformedCertificate)
    guard let cert else { throw CryptoError(code: .internalFailure, message: "no certificate returned") }
    self.der = der
    self.handle = CertificateHandle(cert)
  }

  init(handle: CertificateHandle) throws(CryptoError) {
    self.handle = handle
    self.der = try Shim.buffer("cannot encode certificate") { tg_cert_der(handle.pointer, $0) }
  }

  /// The subject, RFC 2253 (`CN=…,O=…`).
  public var subject: String {
    (try? Shim.buffer("subject") { tg_cert_subject(handle.pointer, $0) }).map { String(decoding: $0, as: UTF8.self) }
      ?? ""
  }

  /// The serial number in upper-case hex.
  public var serialNumberHex: String {
    (try? Shim.buffer("serial") { tg_cert_serial_hex(handle.pointer, $0) }).map { String(decoding: $0, as: UTF8.self) }
      ?? ""
  }

  /// notBefore and notAfter, Unix seconds.
  public var validity: (notBefore: Int64, notAfter: Int64) {
    var notBefore: Int64 = 0
    var notAfter: Int64 = 0
    _ = tg_cert_validity(handle.pointer, &notBefore, &notAfter)
    return (notBefore, notAfter)
  }

  /// SHA-256 of the DER, lower-case hex.
  public var sha256Fingerprint: String { SHA256.hash(der).hexString }

  public func hasExtension(oid: String) -> Bool { tg_cert_has_extension(handle.pointer, oid) == 1 }

  /// The subject public key if it is P-256.
  public func p256PublicKey() throws(CryptoError) -> P256PublicKey {
    let key = try publicKeyHandle()
    guard key.type == TG_KEY_P256 else { throw CryptoError(code: .wrongKeyType, message: "not a P-256 key") }
    return P256PublicKey(handle: key)
  }

  /// The subject public key if it is RSA.
  public func rsaPublicKey() throws(CryptoError) -> RSAPublicKey {
    let key = try publicKeyHandle()
    guard key.type == TG_KEY_RSA else { throw CryptoError(code: .wrongKeyType, message: "not an RSA key") }
    return RSAPublicKey(handle: key)
  }

  private func publicKeyHandle() throws(CryptoError) -> KeyHandle {
    var key: OpaquePointer?
    try Shim.check(tg_cert_public_key(handle.pointer, &key), "cannot read public key", parse: .malformedKey)
    guard let key else { throw CryptoError(code: .internalFailure, message: "no key returned") }
    return KeyHandle(key)
  }
}

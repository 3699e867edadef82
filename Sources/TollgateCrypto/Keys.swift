import CTollgateCrypto

/// A P-256 (secp256r1) private key, parsed once and reusable from any task.
public struct P256PrivateKey: Sendable {
  let handle: KeyHandle

  /// Parses a PEM (`BEGIN PRIVATE KEY` as in an App Store Connect `.p8`, or `BEGIN EC PRIVATE
  /// KEY`) or DER (PKCS#8 or SEC1) key.
  public init(pem: String) throws(CryptoError) { try self.init(bytes: Array(pem.utf8)) }

  public init(bytes: [UInt8]) throws(CryptoError) {
    handle = try KeyHandle.parsePrivate(bytes)
    guard handle.type == TG_KEY_P256 else { throw CryptoError(code: .wrongKeyType, message: "not a P-256 key") }
  }

  /// A new random key.
  public static func generate() throws(CryptoError) -> P256PrivateKey {
    var key: OpaquePointer?
    try Shim.check(tg_pkey_generate_p256(&key), "cannot generate P-256 key")
    guard let key else { throw CryptoError(code: .internalFailure, message: "no key returned") }
    return P256PrivateKey(handle: KeyHandle(key))
  }

  init(handle: KeyHandle) { self.handle = handle }

  public var publicKey: P256PublicKey { P256PublicKey(handle: handle) }

  /// PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the `.p8` format.
  public func pkcs8PEM() throws(CryptoError) -> String {
    String(
      decoding: try Shim.buffer("cannot encode key") { tg_pkey_private_pkcs8_pem(handle.pointer, $0) }, as: UTF8.self)
  }

  /// PKCS#8 DER.
  public func pkcs8DER() throws(CryptoError) -> [UInt8] {
    try Shim.buffer("cannot encode key") { tg_pkey_private_pkcs8_der(handle.pointer, $0) }
  }
}

/// A P-256 public key (from a certificate or a SubjectPublicKeyInfo).
public struct P256PublicKey: Sendable {
  let handle: KeyHandle

  /// Parses a SubjectPublicKeyInfo, DER or PEM.
  public init(bytes: [UInt8]) throws(CryptoError) {
    handle = try KeyHandle.parsePublic(bytes)
    guard handle.type == TG_KEY_P256 else { throw CryptoError(code: .wrongKeyType, message: "not a P-256 key") }
  }

  init(handle: KeyHandle) { self.handle = handle }

  /// SubjectPublicKeyInfo DER.
  public func derRepresentation() throws(CryptoError) -> [UInt8] { try handle.publicKeyDER() }
}

/// An RSA private key (Google service accounts, simulated stores).
public struct RSAPrivateKey: Sendable {
  let handle: KeyHandle

  /// Parses a PEM (`BEGIN PRIVATE KEY` or `BEGIN RSA PRIVATE KEY`) or DER key.
  public init(pem: String) throws(CryptoError) { try self.init(bytes: Array(pem.utf8)) }

  public init(bytes: [UInt8]) throws(CryptoError) {
    handle = try KeyHandle.parsePrivate(bytes)
    guard handle.type == TG_KEY_RSA else { throw CryptoError(code: .wrongKeyType, message: "not an RSA key") }
  }

  /// A new random key of `bits` bits (2048 by default).
  public static func generate(bits: Int = 2048) throws(CryptoError) -> RSAPrivateKey {
    var key: OpaquePointer?
    try Shim.check(tg_pkey_generate_rsa(Int32(clamping: bits), &key), "cannot generate RSA key")
    guard let key else { throw CryptoError(code: .internalFailure, message: "no key returned") }
    return RSAPrivateKey(handle: KeyHandle(key))
  }

  init(handle: KeyHandle) { self.handle = handle }

  public var publicKey: RSAPublicKey { RSAPublicKey(handle: handle) }

  public func pkcs8PEM() throws(CryptoError) -> String {
    String(
      decoding: try Shim.buffer("cannot encode key") { tg_pkey_private_pkcs8_pem(handle.pointer, $0) }, as: UTF8.self)
  }
}

/// An RSA public key.
public struct RSAPublicKey: Sendable {
  let handle: KeyHandle

  /// Parses a SubjectPublicKeyInfo, DER or PEM (`BEGIN PUBLIC KEY`).
  public init(bytes: [UInt8]) throws(CryptoError) {
    handle = try KeyHandle.parsePublic(bytes)
    guard handle.type == TG_KEY_RSA else { throw CryptoError(code: .wrongKeyType, message: "not an RSA key") }
  }

  init(handle: KeyHandle) { self.handle = handle }

  public func derRepresentation() throws(CryptoError) -> [UInt8] { try handle.publicKeyDER() }
}

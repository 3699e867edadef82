import CTollgateCrypto

extension RSAPublicKey {
  /// Builds a key from its big-endian modulus and public exponent, as a JWK carries them (`n` and
  /// `e`, base64url-decoded). The modulus must be 1024 to 8192 bits and the exponent odd and
  /// greater than 1 (else `.malformedKey`); empty or oversized input is `.invalidArgument`.
  public init(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
    var key: OpaquePointer?
    let status = modulus.withUnsafeBufferPointer { n in
      exponent.withUnsafeBufferPointer { e in
        tg_pkey_rsa_public_from_components(n.baseAddress, n.count, e.baseAddress, e.count, &key)
      }
    }
    try Shim.check(status, "not an RSA modulus and exponent", parse: .malformedKey)
    guard let key else { throw CryptoError(code: .internalFailure, message: "no key returned") }
    self.init(handle: KeyHandle(key))
  }
}

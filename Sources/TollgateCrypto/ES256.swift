import CTollgateCrypto

/// ECDSA P-256 with SHA-256, signatures in the JWS form r || s (64 bytes).
public enum ES256 {
  public static func sign(_ message: [UInt8], with key: P256PrivateKey) throws(CryptoError) -> [UInt8] {
    var signature = [UInt8](repeating: 0, count: 64)
    let status = message.withUnsafeBufferPointer {
      tg_es256_sign(key.handle.pointer, $0.baseAddress, $0.count, &signature)
    }
    try Shim.check(status, "ES256 signing failed")
    return signature
  }

  /// Whether `signature` (r || s) is valid for `message` under `key`.
  public static func isValidSignature(_ signature: [UInt8], for message: [UInt8], publicKey key: P256PublicKey) -> Bool
  {
    let status = message.withUnsafeBufferPointer { m in
      signature.withUnsafeBufferPointer { s in
        tg_es256_verify(key.handle.pointer, m.baseAddress, m.count, s.baseAddress, s.count)
      }
    }
    return status == TG_OK
  }
}

/// RSASSA-PKCS1-v1_5 with SHA-256.
public enum RS256 {
  public static func sign(_ message: [UInt8], with key: RSAPrivateKey) throws(CryptoError) -> [UInt8] {
    try message.withUnsafeBufferPointer { (m) throws(CryptoError) -> [UInt8] in
      try Shim.buffer("RS256 signing failed") { tg_rs256_sign(key.handle.pointer, m.baseAddress, m.count, $0) }
    }
  }

  public static func isValidSignature(_ signature: [UInt8], for message: [UInt8], publicKey key: RSAPublicKey) -> Bool {
    let status = message.withUnsafeBufferPointer { m in
      signature.withUnsafeBufferPointer { s in
        tg_rs256_verify(key.handle.pointer, m.baseAddress, m.count, s.baseAddress, s.count)
      }
    }
    return status == TG_OK
  }
}

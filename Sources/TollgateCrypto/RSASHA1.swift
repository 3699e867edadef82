import CTollgateCrypto

/// RSASSA-PKCS1-v1_5 with SHA-1: the Play Billing library signs `INAPP_PURCHASE_DATA` this way.
/// Only the store simulator signs with it (as Google Play would).
public enum RSASHA1 {
  /// Whether `signature` is valid for the exact bytes of `message` under `key`.
  public static func isValidSignature(_ signature: [UInt8], for message: [UInt8], publicKey key: RSAPublicKey) -> Bool {
    let status = message.withUnsafeBufferPointer { m in
      signature.withUnsafeBufferPointer { s in
        tg_rsa_sha1_verify(key.handle.pointer, m.baseAddress, m.count, s.baseAddress, s.count)
      }
    }
    return status == TG_OK
  }

  /// Signs `message` with `key`, as Google Play signs a purchase's data for the app.
  public static func sign(_ message: [UInt8], with key: RSAPrivateKey) throws(CryptoError) -> [UInt8] {
    try message.withUnsafeBufferPointer { (m) throws(CryptoError) -> [UInt8] in
      try Shim.buffer("RSA-SHA1 signing failed") { tg_rsa_sha1_sign(key.handle.pointer, m.baseAddress, m.count, $0) }
    }
  }
}

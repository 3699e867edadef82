import CTollgateCrypto

/// RSASSA-PKCS1-v1_5 with SHA-1, verification only: the Play Billing library signs
/// `INAPP_PURCHASE_DATA` this way. Nothing in Tollgate signs with SHA-1.
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
}

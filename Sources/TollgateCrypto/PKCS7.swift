import CTollgateCrypto

/// PKCS#7 SignedData with attached content (legacy App Store receipts).
public enum PKCS7 {
  /// The attached content, with no check at all (for reading a receipt before verifying it).
  public static func signedContent(of der: [UInt8]) throws(CryptoError) -> [UInt8] {
    try der.withUnsafeBufferPointer { (d) throws(CryptoError) -> [UInt8] in
      try Shim.buffer("not a PKCS#7 SignedData", parse: .malformedPKCS7) {
        tg_pkcs7_content(d.baseAddress, d.count, $0)
      }
    }
  }

  /// Verifies the signature and that the signer chains, through the embedded certificates, to
  /// one of `roots`; returns the content.
  ///
  /// `time` is Unix seconds, or `nil` to skip validity periods. Apple's receipt signing
  /// certificates expire while receipts stay valid, so callers pass the receipt's creation
  /// date (which the signature covers) rather than now.
  ///
  /// `signerOID`, when set, is an extension the signer must carry (Apple's receipt-signing
  /// marker), unless the signer is itself one of `roots` (a self-signed test signer trusted as
  /// configured); `CryptoError.Code.missingLeafExtension` otherwise.
  public static func verify(_ der: [UInt8], roots: [Certificate], at time: Int64?, signerOID: String? = nil)
    throws(CryptoError) -> [UInt8]
  {
    var x509Error: Int32 = 0
    let rootPointers: [OpaquePointer?] = roots.map { $0.handle.pointer }
    var buffer = tg_buffer(data: nil, len: 0)
    defer { tg_buffer_free(&buffer) }
    let status = withExtendedLifetime(roots) {
      der.withUnsafeBufferPointer { d in
        rootPointers.withUnsafeBufferPointer { r in
          tg_pkcs7_verify(
            d.baseAddress, d.count, r.baseAddress, r.count, time == nil ? 0 : 1, time ?? 0, signerOID, &buffer,
            &x509Error)
        }
      }
    }
    if status != TG_OK {
      let detail = status == TG_ERR_CHAIN ? ": " + String(cString: tg_x509_error_string(x509Error)) : ""
      throw Shim.error(status, "PKCS#7 signature rejected\(detail)", parse: .malformedPKCS7)
    }
    guard let data = buffer.data else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: buffer.len))
  }

  /// Signs `content` as a SignedData with the content attached, embedding `signer` and `chain`
  /// (the certificates above it): what a store simulator signs app receipts with, and what tests
  /// forge receipts with.
  public static func sign(
    _ content: [UInt8], signer: Certificate, key: P256PrivateKey, chain: [Certificate] = []
  ) throws(CryptoError) -> [UInt8] {
    let chainPointers: [OpaquePointer?] = chain.map { $0.handle.pointer }
    return try withExtendedLifetime((signer, key, chain)) { () throws(CryptoError) -> [UInt8] in
      try content.withUnsafeBufferPointer { (c) throws(CryptoError) -> [UInt8] in
        try chainPointers.withUnsafeBufferPointer { (x) throws(CryptoError) -> [UInt8] in
          try Shim.buffer("cannot sign PKCS#7") {
            tg_pkcs7_sign(
              c.baseAddress, c.count, signer.handle.pointer, key.handle.pointer, x.baseAddress, x.count, $0)
          }
        }
      }
    }
  }
}

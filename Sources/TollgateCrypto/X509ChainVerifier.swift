import CTollgateCrypto

/// Verifies a leaf + intermediate pair against pinned roots, the way App Store JWS `x5c`
/// chains are checked: exactly leaf ← intermediate ← configured root, no partial chains,
/// X509_STRICT off, optional marker extensions on the leaf and the intermediate.
///
/// Whatever the sender put after the intermediate (`x5c[2]`) is not an input: the anchor is
/// always one of `roots`.
public struct X509ChainVerifier: Sendable {
  public var roots: [Certificate]
  /// A dotted OID the leaf must carry, or `nil`.
  public var leafOID: String?
  /// A dotted OID the intermediate must carry, or `nil`.
  public var intermediateOID: String?

  public init(roots: [Certificate], leafOID: String? = nil, intermediateOID: String? = nil) {
    self.roots = roots
    self.leafOID = leafOID
    self.intermediateOID = intermediateOID
  }

  /// Checks the chain at `time` (Unix seconds; `nil` skips validity-period checks) and returns
  /// the leaf's P-256 public key.
  ///
  /// Throws `.malformedCertificate`, `.untrustedChain`, `.missingLeafExtension`,
  /// `.missingIntermediateExtension` or `.wrongKeyType`.
  public func verify(leaf: [UInt8], intermediate: [UInt8], at time: Int64?) throws(CryptoError) -> P256PublicKey {
    try verifiedChain(leaf: leaf, intermediate: intermediate, at: time).key
  }

  /// A chain `verify` accepted: the leaf's key, and the window (Unix seconds) in which every
  /// certificate of the chain it built is valid, `notBefore <= t < notAfter`.
  public struct Verified: Sendable {
    public var key: P256PublicKey
    public var notBefore: Int64
    public var notAfter: Int64

    /// Whether every certificate of the chain is valid at `time` (Unix seconds), as OpenSSL judges it.
    public func isValid(at time: Int64) -> Bool { notBefore <= time && time < notAfter }
  }

  /// `verify(leaf:intermediate:at:)`, with the chain's validity window.
  public func verifiedChain(leaf: [UInt8], intermediate: [UInt8], at time: Int64?) throws(CryptoError) -> Verified {
    var key: OpaquePointer?
    var x509Error: Int32 = 0
    var notBefore: Int64 = 0
    var notAfter: Int64 = 0
    let rootPointers: [OpaquePointer?] = roots.map { $0.handle.pointer }
    let status = withExtendedLifetime(roots) {
      leaf.withUnsafeBufferPointer { l in
        intermediate.withUnsafeBufferPointer { i in
          rootPointers.withUnsafeBufferPointer { r in
            tg_chain_verify(
              l.baseAddress, l.count, i.baseAddress, i.count, r.baseAddress, r.count,
              time == nil ? 0 : 1, time ?? 0, leafOID, intermediateOID, &key, &x509Error, &notBefore, &notAfter)
          }
        }
      }
    }
    if status != TG_OK {
      let detail = status == TG_ERR_CHAIN ? ": " + String(cString: tg_x509_error_string(x509Error)) : ""
      throw Shim.error(status, "certificate chain rejected\(detail)", parse: .malformedCertificate)
    }
    guard let key else { throw CryptoError(code: .internalFailure, message: "no key returned") }
    let handle = KeyHandle(key)
    guard handle.type == TG_KEY_P256 else {
      throw CryptoError(code: .wrongKeyType, message: "leaf key is not P-256")
    }
    return Verified(key: P256PublicKey(handle: handle), notBefore: notBefore, notAfter: notAfter)
  }
}

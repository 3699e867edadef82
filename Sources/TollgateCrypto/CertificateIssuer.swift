import CTollgateCrypto

/// Issues X.509 certificates on P-256 keys: what a store simulator needs to sign like a store,
/// and what tests forge chains with.
public enum CertificateIssuer {
  /// A validity window, Unix seconds.
  public struct Validity: Sendable, Hashable {
    public var notBefore: Int64
    public var notAfter: Int64

    public init(notBefore: Int64, notAfter: Int64) {
      self.notBefore = notBefore
      self.notAfter = notAfter
    }

    /// From one day before `now` to `years` years after it.
    public static func around(_ now: Int64, years: Int64 = 10) -> Validity {
      Validity(notBefore: now - 86_400, notAfter: now + years * 365 * 86_400)
    }
  }

  /// Issues one certificate (SHA-256 signature). `issuer == nil` makes it self-signed by
  /// `subjectKey`. `markerOID` adds a non-critical extension with an ASN.1 NULL value.
  public static func issue(
    subjectKey: P256PrivateKey, commonName: String, issuer: (certificate: Certificate, key: P256PrivateKey)?,
    serial: Int64, validity: Validity, isCA: Bool, markerOID: String?
  ) throws(CryptoError) -> Certificate {
    var cert: OpaquePointer?
    let signingKey = issuer?.key ?? subjectKey
    let status = withExtendedLifetime((issuer?.certificate, signingKey, subjectKey)) {
      tg_cert_issue(
        subjectKey.handle.pointer, commonName, issuer?.certificate.handle.pointer, signingKey.handle.pointer,
        serial, validity.notBefore, validity.notAfter, isCA ? 1 : 0, markerOID, &cert)
    }
    try Shim.check(status, "cannot issue certificate \(commonName)")
    guard let cert else { throw CryptoError(code: .internalFailure, message: "no certificate returned") }
    return try Certificate(handle: CertificateHandle(cert))
  }
}

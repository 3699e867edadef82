import CTollgateCrypto

extension CertificateIssuer {
  /// Issues one certificate on an RSA key (SHA-256 signature, `digitalSignature` key usage for a
  /// leaf): what the store simulator signs Amazon SNS messages with, as SNS's own certificates are
  /// RSA. `issuer == nil` makes it self-signed by `subjectKey`.
  public static func issue(
    subjectKey: RSAPrivateKey, commonName: String, issuer: (certificate: Certificate, key: RSAPrivateKey)? = nil,
    serial: Int64, validity: Validity, isCA: Bool = false
  ) throws(CryptoError) -> Certificate {
    var cert: OpaquePointer?
    let signingKey = issuer?.key ?? subjectKey
    let status = withExtendedLifetime((issuer?.certificate, signingKey, subjectKey)) {
      tg_cert_issue(
        subjectKey.handle.pointer, commonName, issuer?.certificate.handle.pointer, signingKey.handle.pointer,
        serial, validity.notBefore, validity.notAfter, isCA ? 1 : 0, nil, &cert)
    }
    try Shim.check(status, "cannot issue certificate \(commonName)")
    guard let cert else { throw CryptoError(code: .internalFailure, message: "no certificate returned") }
    return try Certificate(handle: CertificateHandle(cert))
  }
}

extension CertificateIssuer {
  /// A self-signed leaf certificate on an RSA key (the store simulator's SNS signing identity).
  public static func issueSelfSigned(
    rsaKey: RSAPrivateKey, commonName: String, serial: Int64, validity: Validity
  ) throws(CryptoError) -> Certificate {
    try issue(subjectKey: rsaKey, commonName: commonName, serial: serial, validity: validity)
  }
}

import TollgateCrypto

extension AmazonInspection {
  /// What `inspect amazon-notification` checks of an SNS message's signature: with `certificate`
  /// (standing in for the one at `SigningCertURL`), everything `SNSMessageVerifier` checks, the
  /// certificate's validity taken at `atMs` when given (else at the message's `Timestamp`);
  /// without one, everything that needs no certificate, and then `.signatureNotChecked`.
  enum SignatureCheck {
    case verified
    case refused(SNSVerificationError)
    case signatureNotChecked(certificateURL: String)
  }

  static func checkSignature(
    of message: SNSMessage, certificate: Certificate?, atMs: Int64?, verifier: SNSMessageVerifier
  ) -> SignatureCheck {
    guard let certificate else {
      if let error = uncertifiedProblem(message, policy: verifier.policy) { return .refused(error) }
      return .signatureNotChecked(certificateURL: message.signingCertURL ?? "")
    }
    let result = verifier.verify(message, certificate: certificate)
    guard let atMs, atMs != message.timestampMs else {
      if case .failure(let error) = result { return .refused(error) }
      return .verified
    }
    // The checks before the certificate's validity passed unless another error came back.
    if case .failure(let error) = result, error.code != .certificateExpired, error.code != .badSignature {
      return .refused(error)
    }
    let validity = certificate.validity
    guard validity.notBefore <= atMs / 1_000, atMs / 1_000 <= validity.notAfter else {
      return .refused(
        SNSVerificationError(
          code: .certificateExpired, message: "the signing certificate was not valid at --at \(atMs)"))
    }
    switch result {
    case .success: return .verified
    case .failure(let error) where error.code == .badSignature: return .refused(error)
    case .failure:
      // Not valid at the Timestamp but valid at --at: the signature alone is left to check.
      return signatureMatches(message, certificate: certificate)
        ? .verified
        : .refused(SNSVerificationError(code: .badSignature, message: "the signature does not match the message"))
    }
  }

  /// The first check `SNSMessageVerifier` makes before it needs a certificate that `message`
  /// fails, in the same order; `nil` when it passes them all.
  static func uncertifiedProblem(_ message: SNSMessage, policy: SNSCertificatePolicy) -> SNSVerificationError? {
    if case .failure(let error) = message.canonicalBytes() { return error }
    guard let version = message.signatureVersion else { return .missing("SignatureVersion") }
    guard SNSSignatureVersion(rawValue: version) != nil else {
      return SNSVerificationError(
        code: .unsupportedSignatureVersion, message: "SignatureVersion \"\(version)\" is not 1 or 2")
    }
    guard message.topicArn != nil else { return .missing("TopicArn") }
    guard let url = message.signingCertURL else { return .missing("SigningCertURL") }
    guard policy.allowsCertificateURL(url) else {
      return SNSVerificationError(code: .untrustedCertificateURL, message: "SigningCertURL \(url) is not an SNS URL")
    }
    guard message.timestampMs != nil else {
      return SNSVerificationError(code: .malformed, message: "Timestamp is not an RFC 3339 UTC time")
    }
    guard let signature = message.signature else { return .missing("Signature") }
    guard let bytes = Base64.decode(signature, ignoringWhitespace: true), !bytes.isEmpty else {
      return SNSVerificationError(code: .malformed, message: "Signature is not base64")
    }
    return nil
  }

  /// Whether the signature matches the canonical text under the certificate's key, by itself.
  private static func signatureMatches(_ message: SNSMessage, certificate: Certificate) -> Bool {
    guard case .success(let canonical) = message.canonicalBytes(),
      let version = message.signatureVersion.flatMap(SNSSignatureVersion.init(rawValue:)),
      let signature = message.signature.flatMap({ Base64.decode($0, ignoringWhitespace: true) }),
      let key = try? certificate.rsaPublicKey()
    else { return false }
    return switch version {
    case .sha1WithRSA: RSASHA1.isValidSignature(signature, for: canonical, publicKey: key)
    case .sha256WithRSA: RS256.isValidSignature(signature, for: canonical, publicKey: key)
    }
  }
}

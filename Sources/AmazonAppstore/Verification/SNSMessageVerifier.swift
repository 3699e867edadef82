import TollgateCrypto

/// Checks that an SNS message comes from Amazon SNS, for one of our topics
/// (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html):
///
/// 1. the fields the signed text needs are there;
/// 2. `SignatureVersion` 1 (SHA1withRSA) or 2 (SHA256withRSA), nothing else;
/// 3. `TopicArn` is allowed;
/// 4. `SigningCertURL` passes the certificate policy (so a certificate given in its place, as
///    `inspect --cert` does, still needs an SNS URL);
/// 5. the certificate was valid at the message's `Timestamp`;
/// 6. the signature matches the canonical text under the certificate's RSA key.
public struct SNSMessageVerifier: Sendable {
  /// The topics whose messages are accepted; `nil` accepts any topic (for `tollgate inspect`
  /// only: the worker always configures its topics).
  public var allowedTopicArns: Set<String>?
  public var policy: SNSCertificatePolicy

  public init(allowedTopicArns: Set<String>?, policy: SNSCertificatePolicy = SNSCertificatePolicy()) {
    self.allowedTopicArns = allowedTopicArns
    self.policy = policy
  }

  /// Verifies `message` with `certificate` standing for the one at its `SigningCertURL`. Pure.
  public func verify(_ message: SNSMessage, certificate: Certificate) -> Result<
    SNSVerifiedMessage, SNSVerificationError
  > {
    let prepared: Prepared
    switch precheck(message) {
    case .success(let value): prepared = value
    case .failure(let error): return .failure(error)
    }
    let validity = certificate.validity
    guard validity.notBefore <= prepared.timestampMs / 1_000, prepared.timestampMs / 1_000 <= validity.notAfter
    else {
      return .failure(
        SNSVerificationError(
          code: .certificateExpired,
          message: "the signing certificate was not valid at the message's Timestamp \(message.timestamp ?? "")"))
    }
    guard let key = try? certificate.rsaPublicKey() else {
      return .failure(SNSVerificationError(code: .badSignature, message: "the signing certificate has no RSA key"))
    }
    let valid =
      switch prepared.version {
      case .sha1WithRSA: RSASHA1.isValidSignature(prepared.signature, for: prepared.canonical, publicKey: key)
      case .sha256WithRSA: RS256.isValidSignature(prepared.signature, for: prepared.canonical, publicKey: key)
      }
    guard valid else {
      return .failure(
        SNSVerificationError(code: .badSignature, message: "the signature does not match the message"))
    }
    return .success(SNSVerifiedMessage(message: message, signatureVersion: prepared.version))
  }

  /// Verifies `message`, fetching its signing certificate through `certificates` (only from a URL
  /// the cache's policy allows).
  public func verify(_ message: SNSMessage, certificates: SNSCertificateCache) async
    -> Result<SNSVerifiedMessage, SNSVerificationError>
  {
    if case .failure(let error) = precheck(message) { return .failure(error) }
    guard let url = message.signingCertURL else { return .failure(.missing("SigningCertURL")) }
    switch await certificates.certificate(for: url) {
    case .success(let certificate): return verify(message, certificate: certificate)
    case .failure(let error): return .failure(error)
    }
  }

  private struct Prepared {
    var canonical: [UInt8]
    var signature: [UInt8]
    var version: SNSSignatureVersion
    var timestampMs: Int64
  }

  /// Everything that needs no certificate, in the order of the type's documentation.
  private func precheck(_ message: SNSMessage) -> Result<Prepared, SNSVerificationError> {
    let canonical: [UInt8]
    switch message.canonicalBytes() {
    case .success(let bytes): canonical = bytes
    case .failure(let error): return .failure(error)
    }
    guard let rawVersion = message.signatureVersion else { return .failure(.missing("SignatureVersion")) }
    guard let version = SNSSignatureVersion(rawValue: rawVersion) else {
      return .failure(
        SNSVerificationError(
          code: .unsupportedSignatureVersion, message: "SignatureVersion \"\(rawVersion)\" is not 1 or 2"))
    }
    guard let topic = message.topicArn else { return .failure(.missing("TopicArn")) }
    if let allowedTopicArns, !allowedTopicArns.contains(topic) {
      return .failure(SNSVerificationError(code: .topicNotAllowed, message: "topic \(topic) is not configured"))
    }
    guard let url = message.signingCertURL else { return .failure(.missing("SigningCertURL")) }
    guard policy.allowsCertificateURL(url) else {
      return .failure(
        SNSVerificationError(code: .untrustedCertificateURL, message: "SigningCertURL \(url) is not an SNS URL"))
    }
    guard let timestampMs = message.timestampMs else {
      return .failure(SNSVerificationError(code: .malformed, message: "Timestamp is not an RFC 3339 UTC time"))
    }
    guard let signatureText = message.signature else { return .failure(.missing("Signature")) }
    guard let signature = Base64.decode(signatureText, ignoringWhitespace: true), !signature.isEmpty else {
      return .failure(SNSVerificationError(code: .malformed, message: "Signature is not base64"))
    }
    return .success(Prepared(canonical: canonical, signature: signature, version: version, timestampMs: timestampMs))
  }
}

/// `SignatureVersion`.
public enum SNSSignatureVersion: String, Sendable, Hashable, CaseIterable {
  /// "1": RSA PKCS#1 v1.5 over SHA-1.
  case sha1WithRSA = "1"
  /// "2": RSA PKCS#1 v1.5 over SHA-256.
  case sha256WithRSA = "2"
}

/// An SNS message whose signature, certificate, time and topic were checked.
public struct SNSVerifiedMessage: Sendable, Hashable {
  public let message: SNSMessage
  public let signatureVersion: SNSSignatureVersion

  /// The Real-Time Notification inside a `Notification`; `nil` for other types or when `Message`
  /// is not an RTN's JSON.
  public var amazonNotification: AmazonNotification? {
    guard message.typedType == .notification, let text = message.message else { return nil }
    return AmazonNotification(message: text)
  }
}

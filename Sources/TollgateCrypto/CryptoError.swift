/// An error from TollgateCrypto: an opaque code plus a message for logs.
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What went wrong. New codes may be added; switch with a `default`.
  public struct Code: Sendable, Hashable, CustomStringConvertible {
    fileprivate enum Wrapped: String, Sendable, Hashable {
      case invalidArgument
      case malformedKey
      case malformedCertificate
      case malformedPKCS7
      case wrongKeyType
      case signatureMismatch
      case untrustedChain
      case missingLeafExtension
      case missingIntermediateExtension
      case internalFailure
    }

    fileprivate var wrapped: Wrapped

    /// A buffer or parameter the shim refused (empty input, bad OID, out-of-range size).
    public static let invalidArgument = Code(wrapped: .invalidArgument)
    /// The bytes are not a key in a supported encoding.
    public static let malformedKey = Code(wrapped: .malformedKey)
    /// The bytes are not a DER X.509 certificate.
    public static let malformedCertificate = Code(wrapped: .malformedCertificate)
    /// The bytes are not a PKCS#7 SignedData with attached data.
    public static let malformedPKCS7 = Code(wrapped: .malformedPKCS7)
    /// The key is not of the kind the algorithm needs (P-256 for ES256, RSA for RS256).
    public static let wrongKeyType = Code(wrapped: .wrongKeyType)
    /// A signature does not match its message.
    public static let signatureMismatch = Code(wrapped: .signatureMismatch)
    /// The certificate chain does not lead to a configured root at the checked time.
    public static let untrustedChain = Code(wrapped: .untrustedChain)
    /// The leaf certificate lacks the required marker extension.
    public static let missingLeafExtension = Code(wrapped: .missingLeafExtension)
    /// The intermediate certificate lacks the required marker extension.
    public static let missingIntermediateExtension = Code(wrapped: .missingIntermediateExtension)
    /// OpenSSL failed for a reason unrelated to the input.
    public static let internalFailure = Code(wrapped: .internalFailure)

    public var description: String { wrapped.rawValue }
  }

  public var code: Code
  public var message: String

  public init(code: Code, message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "CryptoError(\(code)): \(message)" }
}
